@testable import Fastget
import Testing

/// IMF-fixdates (`Last-Modified`) to seconds and back; anything else is no date, never a trap.
@Suite struct HTTPDateTests {
    @Test func readsAndWritesAnIMFFixdate() {
        #expect(HTTPDate.seconds("Sat, 21 Nov 2026 10:00:00 GMT") == 1_795_255_200)
        #expect(HTTPDate.text(1_795_255_200) == "Sat, 21 Nov 2026 10:00:00 GMT")
    }

    @Test(arguments: [
        "Mon, 01 Jan 99999999999 00:00:00 GMT", "Mon, 01 Jan -99999999999 00:00:00 GMT", "Mon, 01 Jan 999 00:00:00 GMT",
        "Sat, 21 Nov 2026 10:00:00 UTC", "Sat, 32 Nov 2026 10:00:00 GMT", "Saturday, 21-Nov-26 10:00:00 GMT", "",
    ])
    func anythingElseIsNoDate(text: String) {
        #expect(HTTPDate.seconds(text) == nil)
    }
}
