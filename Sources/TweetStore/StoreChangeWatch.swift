#if canImport(Glibc)
    import Glibc
#endif

/// What tells a live view that its store changed, without asking it again and again: the
/// kernel's file events on the local engine's journal and manifest, PostgreSQL's notifications on
/// a server. A descriptor to wait on (with `poll`, beside a terminal's keys), and a drain that
/// says whether what woke it was a change. A change may be a write that added nothing a view
/// shows (a fold, another user's bookmark): the view reads again and finds nothing new.
///
/// Used by one thread at a time: the view that waits on it.
public protocol StoreChangeWatch: AnyObject {
    /// Readable when a change may have come.
    var fileDescriptor: Int32 { get }

    /// Takes what made ``fileDescriptor`` readable, without waiting. Returns whether the store
    /// changed since the watch began or the last call.
    func drain() throws -> Bool
}

extension StoreChangeWatch {
    /// Waits until the store changes, or `timeout` has passed (`nil`: for as long as it takes).
    /// Returns whether it changed. An interrupted wait goes on.
    public func wait(timeout: Duration? = nil) throws -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return false }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 {
                guard errno == EINTR else {
                    throw StoreError.io(path: "the store's change watch", reason: String(cString: strerror(errno)))
                }
                continue
            }
            if ready > 0, try drain() { return true }
        }
    }
}
