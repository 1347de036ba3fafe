import FoundationEssentials
import TweetStore

#if canImport(Glibc)
    import Glibc
#endif

/// Work done on a thread of its own while the caller goes on: a sort's run written while the next
/// fills, an import's documents made into records while the next are read. Not on a thread of
/// Swift concurrency's or Dispatch's pools, since the caller, inside an async import, holds one of
/// those while it waits. The thread holds only the shared ``Outcome``, so the last reference to
/// this object is never the thread's own, and dropping it joins the thread: no work outlives the
/// sort or import that started it.
final class BackgroundWork<Value> {
    /// Set by the thread before it ends, read after it is joined (which orders the two).
    private final class Outcome: @unchecked Sendable {
        var result: Result<Value, any Error>?
    }

    private let outcome = Outcome()
    private var thread: pthread_t?

    /// Starts `work` on a new thread.
    /// - Throws: ``StoreError/io(path:reason:)`` when no thread can be made.
    init(_ work: @escaping () throws -> Value) throws {
        let outcome = outcome
        let job = BackgroundJob { outcome.result = Result { try work() } }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(job).toOpaque()
        let status = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<BackgroundJob>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<BackgroundJob>.fromOpaque(context).release()
            throw StoreError.io(
                path: "a background task", reason: "cannot start a thread: \(String(cString: strerror(status)))")
        }
        self.thread = thread
    }

    /// Waits for the work to end: its value, or the error that stopped it.
    func wait() throws -> Value {
        join()
        guard let result = outcome.result else {
            throw StoreError.io(path: "a background task", reason: "its thread ended without a result")
        }
        return try result.get()
    }

    private func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }

    deinit { join() }
}

/// What a ``BackgroundWork`` thread runs, let go of (with everything it holds) once it has run.
private final class BackgroundJob: @unchecked Sendable {
    private var body: (() -> Void)?

    init(_ body: @escaping () -> Void) { self.body = body }

    func run() {
        let body = self.body
        self.body = nil
        body?()
    }
}
