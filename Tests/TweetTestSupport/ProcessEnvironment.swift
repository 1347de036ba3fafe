import Synchronization

/// The test process's environment is shared by every test running at once: a test that changes it
/// (`setenv`, which can move `environ`) holds this gate, and so does starting a child process,
/// which reads it.
package enum ProcessEnvironment {
    package static let gate = Mutex(())
}
