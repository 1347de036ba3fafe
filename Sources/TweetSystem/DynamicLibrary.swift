#if canImport(Glibc)
    import Glibc
#endif

/// A shared library opened with `dlopen` when a command first needs it, so that every other
/// command starts without it; its functions are looked up by name.
public struct DynamicLibrary: @unchecked Sendable {
    /// Why a library cannot be used, as a sentence for an error message.
    public struct Missing: Error, Equatable, Sendable {
        public var reason: String
    }

    /// The handle `dlopen` gave; never closed, as the functions taken from it live as long.
    private let handle: UnsafeMutableRawPointer
    private let name: String
    private let install: String

    /// Opens `name` (a soname such as `libpng16.so.16`); `package` is the Debian package that
    /// installs it, named in the error.
    public init(_ name: String, package: String) throws(Missing) {
        self.name = name
        install = "(Debian: apt-get install \(package))"
        // Its own symbols first: the library and those it needs resolve among themselves, not
        // through the Swift runtime's, which halves the loader's work.
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) else {
            throw Missing(reason: "\(name) is not installed \(install)")
        }
        self.handle = handle
    }

    /// The function `symbol`, as the C function type `T`.
    public func function<T>(_ symbol: String, as type: T.Type = T.self) throws(Missing) -> T {
        guard let pointer = dlsym(handle, symbol) else {
            throw Missing(reason: "the installed \(name) has no \(symbol) \(install)")
        }
        return unsafeBitCast(pointer, to: T.self)
    }
}
