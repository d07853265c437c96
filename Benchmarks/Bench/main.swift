print("Bench: not yet")
