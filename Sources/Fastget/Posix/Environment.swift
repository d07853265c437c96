internal import Glibc

/// The process environment, read-only.
package enum Environment {
    /// The value of the variable `name`, nil when it is unset (an empty value is returned as
    /// it is). The corresponding C function is `getenv`.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
