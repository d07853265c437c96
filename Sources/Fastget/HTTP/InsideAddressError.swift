/// A connection refused before it was made: it was to reach only public addresses (for a mirror
/// a public server named), and `host` spells or resolves to none.
package struct InsideAddressError: Error, Sendable, CustomStringConvertible {
    package let host: String
    /// The addresses it spells or resolves to, none of them public.
    package let addresses: [String]

    package init(host: String, addresses: [String]) {
        self.host = host
        self.addresses = addresses
    }

    package var description: String {
        let list = addresses.prefix(4).joined(separator: ", ")
        return "\(host) is \(addresses.count == 1 ? "" : "at ")\(list), not a public address, and a public server named it"
    }
}
