import CLibPQ
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// libpq's functions, loaded with `dlopen` the first time a PostgreSQL store is used.
///
/// Linking libpq into the binary would load it and the twenty libraries it needs (TLS, Kerberos,
/// LDAP) into every command, local stores included: that tripled the dynamic loader's symbol
/// lookups at every start-up. CLibPQ gives the declarations; these pointers are libpq's own
/// functions. `RTLD_DEEPBIND` makes the loader resolve libpq's and its libraries' symbols among
/// themselves first, not through the Swift runtime's libraries ahead of them: that halves
/// `dlopen`'s work.
struct LibPQ: @unchecked Sendable {
    let connectdbParams:
        @convention(c) (
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int32
        ) -> OpaquePointer?
    let finish: @convention(c) (OpaquePointer?) -> Void
    let status: @convention(c) (OpaquePointer?) -> ConnStatusType
    let transactionStatus: @convention(c) (OpaquePointer?) -> PGTransactionStatusType
    let errorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let parameterStatus: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> UnsafePointer<CChar>?
    let setNoticeProcessor:
        @convention(c) (OpaquePointer?, PQnoticeProcessor?, UnsafeMutableRawPointer?) -> PQnoticeProcessor?
    let execParams:
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> OpaquePointer?
    let resultStatus: @convention(c) (OpaquePointer?) -> ExecStatusType
    let resultErrorField: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    let clear: @convention(c) (OpaquePointer?) -> Void
    let ntuples: @convention(c) (OpaquePointer?) -> Int32
    let nfields: @convention(c) (OpaquePointer?) -> Int32
    let getisnull: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let getvalue: @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let putCopyData: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
    let putCopyEnd: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let getResult: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let conninfoParse:
        @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) ->
            UnsafeMutablePointer<PQconninfoOption>?
    let conninfoFree: @convention(c) (UnsafeMutablePointer<PQconninfoOption>?) -> Void
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let sendQueryParams:
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> Int32
    let consumeInput: @convention(c) (OpaquePointer?) -> Int32
    let isBusy: @convention(c) (OpaquePointer?) -> Int32
    let socket: @convention(c) (OpaquePointer?) -> Int32
    let notifies: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<PGnotify>?
    let encryptPasswordConn:
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) ->
            UnsafeMutablePointer<CChar>?
    /// Pipeline mode (libpq 14 and later), in which reads that wait on nothing go together;
    /// without it they go one after another.
    let pipeline:
        (
            enter: @convention(c) (OpaquePointer?) -> Int32, exit: @convention(c) (OpaquePointer?) -> Int32,
            sync: @convention(c) (OpaquePointer?) -> Int32
        )?

    /// libpq, loaded once.
    static let shared: Result<LibPQ, PostgresError> = load()

    /// The loaded library, or why it cannot be used.
    static func get() throws -> LibPQ { try shared.get() }

    private static func load() -> Result<LibPQ, PostgresError> {
        guard let handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) else {
            return .failure(
                .unreachable(
                    "(any)",
                    reason: "the PostgreSQL engine needs libpq, which is not installed (Debian: apt-get install libpq5)"
                ))
        }
        func symbol<T>(_ name: String) throws -> T {
            guard let pointer = dlsym(handle, name) else {
                throw PostgresError.unreachable("(any)", reason: "this libpq has no \(name)")
            }
            return unsafeBitCast(pointer, to: T.self)
        }
        do {
            return .success(
                LibPQ(
                    connectdbParams: try symbol("PQconnectdbParams"), finish: try symbol("PQfinish"),
                    status: try symbol("PQstatus"),
                    transactionStatus: try symbol("PQtransactionStatus"), errorMessage: try symbol("PQerrorMessage"),
                    parameterStatus: try symbol("PQparameterStatus"),
                    setNoticeProcessor: try symbol("PQsetNoticeProcessor"), execParams: try symbol("PQexecParams"),
                    resultStatus: try symbol("PQresultStatus"), resultErrorField: try symbol("PQresultErrorField"),
                    clear: try symbol("PQclear"), ntuples: try symbol("PQntuples"), nfields: try symbol("PQnfields"),
                    getisnull: try symbol("PQgetisnull"), getvalue: try symbol("PQgetvalue"),
                    putCopyData: try symbol("PQputCopyData"), putCopyEnd: try symbol("PQputCopyEnd"),
                    getResult: try symbol("PQgetResult"), conninfoParse: try symbol("PQconninfoParse"),
                    conninfoFree: try symbol("PQconninfoFree"), freemem: try symbol("PQfreemem"),
                    sendQueryParams: try symbol("PQsendQueryParams"), consumeInput: try symbol("PQconsumeInput"),
                    isBusy: try symbol("PQisBusy"), socket: try symbol("PQsocket"),
                    notifies: try symbol("PQnotifies"), encryptPasswordConn: try symbol("PQencryptPasswordConn"),
                    // Optional: a libpq older than 14 has none, and reads then go one at a time.
                    pipeline: try? (
                        symbol("PQenterPipelineMode"), symbol("PQexitPipelineMode"), symbol("PQpipelineSync")
                    )
                ))
        } catch let error as PostgresError {
            return .failure(error)
        } catch {
            return .failure(.unreachable("(any)", reason: "libpq could not be loaded"))
        }
    }
}
