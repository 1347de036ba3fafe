import FoundationEssentials

/// One process's transactions on one store, one at a time: while a body runs (and may suspend),
/// the engine's other calls from this process wait, since the lock or connection it holds is the
/// process's own. An engine keeps one in its actor.
package struct TransactionGate {
    /// Whether a transaction is open.
    package private(set) var isOpen = false
    /// The open transaction's serial number, which its reader checks.
    package private(set) var number = 0
    /// The task running the open transaction's body. (A task-local value would say the same, but
    /// setting one moves the body off the main thread.)
    private var task: Int?
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init() {}

    private static var currentTask: Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Whether the caller is the open transaction's own task: waiting would wait for itself.
    package var isCalledFromTheOpenTransaction: Bool { isOpen && task != nil && task == Self.currentTask }

    /// Whether transaction `number` is still the open one.
    package func isOpen(_ number: Int) -> Bool { isOpen && self.number == number }

    package mutating func wait(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.append(continuation)
    }

    /// Opens a transaction for the current task.
    /// - Returns: its serial number.
    package mutating func open() -> Int {
        isOpen = true
        task = Self.currentTask
        number += 1
        return number
    }

    /// Closes the open transaction and wakes every waiting call, which look again.
    package mutating func close() {
        isOpen = false
        task = nil
        let resumed = waiting
        waiting.removeAll()
        for continuation in resumed { continuation.resume() }
    }

    /// The error for a call from inside a transaction body that reads the store directly.
    package static func directRead(_ store: String) -> StoreError {
        StoreError.io(path: store, reason: "a transaction read the store directly instead of through the transaction")
    }

    /// The error for a read of a transaction that has ended.
    package static func readAfterEnd(_ store: String) -> StoreError {
        StoreError.io(path: store, reason: "a transaction was read after it ended")
    }
}
