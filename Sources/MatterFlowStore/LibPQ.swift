import CLibPQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libpq's functions, opened the first time a PostgreSQL store is used instead of linked into every process.
///
/// Linked, libpq and the libraries it needs itself (Kerberos, LDAP, GnuTLS and a dozen more) are mapped and
/// initialized at the start of every `matterflow` process, whatever its command: about 4 ms of CPU each time, a third
/// of a `matterflow validate`. Opened here, only a command that uses a store pays for them, and a machine without
/// libpq runs every other command. The header `libpq-fe.h` (the `CLibPQ` module) still gives the types; each field
/// is the libpq function named in ``init(_:)``, with the signature the header declares. ``PostgresConnection`` is
/// the only caller.
struct LibPQ: Sendable {
    typealias Text = UnsafePointer<CChar>?
    typealias Texts = UnsafePointer<UnsafePointer<CChar>?>?
    typealias Options = UnsafeMutablePointer<PQconninfoOption>?

    let connectdbParams: @convention(c) (_ keywords: Texts, _ values: Texts, _ expandDBName: Int32) -> OpaquePointer?
    let pingParams: @convention(c) (_ keywords: Texts, _ values: Texts, _ expandDBName: Int32) -> PGPing
    let status: @convention(c) (OpaquePointer?) -> ConnStatusType
    let finish: @convention(c) (OpaquePointer?) -> Void
    let errorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let setNoticeReceiver:
        @convention(c) (OpaquePointer?, PQnoticeReceiver?, UnsafeMutableRawPointer?) -> PQnoticeReceiver?
    let conndefaults: @convention(c) () -> Options
    let conninfoParse: @convention(c) (Text, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Options
    let conninfo: @convention(c) (OpaquePointer?) -> Options
    let conninfoFree: @convention(c) (Options) -> Void
    let exec: @convention(c) (OpaquePointer?, Text) -> OpaquePointer?
    let execParams:
        @convention(c) (
            OpaquePointer?, _ command: Text, _ count: Int32, _ types: UnsafePointer<Oid>?, _ values: Texts,
            _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?, _ resultFormat: Int32
        ) -> OpaquePointer?
    let prepare:
        @convention(c) (OpaquePointer?, _ name: Text, _ query: Text, _ count: Int32, _ types: UnsafePointer<Oid>?) -> OpaquePointer?
    let execPrepared:
        @convention(c) (
            OpaquePointer?, _ name: Text, _ count: Int32, _ values: Texts, _ lengths: UnsafePointer<Int32>?,
            _ formats: UnsafePointer<Int32>?, _ resultFormat: Int32
        ) -> OpaquePointer?
    let resultStatus: @convention(c) (OpaquePointer?) -> ExecStatusType
    let resultErrorField: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    let nfields: @convention(c) (OpaquePointer?) -> Int32
    let ntuples: @convention(c) (OpaquePointer?) -> Int32
    let fname: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    let getvalue: @convention(c) (OpaquePointer?, _ row: Int32, _ column: Int32) -> UnsafeMutablePointer<CChar>?
    let getisnull: @convention(c) (OpaquePointer?, _ row: Int32, _ column: Int32) -> Int32
    let cmdTuples: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let clear: @convention(c) (OpaquePointer?) -> Void
    let socket: @convention(c) (OpaquePointer?) -> Int32
    let consumeInput: @convention(c) (OpaquePointer?) -> Int32
    let notifies: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<PGnotify>?
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let host: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let port: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let user: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let db: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?

    /// libpq, opened on first use; or why it could not be.
    static let loaded: Result<LibPQ, PostgresError> = open()

    /// The library's file name: its major version 5 is the interface this code is written against.
    #if canImport(Darwin)
    static let fileName = "libpq.5.dylib"
    #else
    static let fileName = "libpq.so.5"
    #endif

    /// Opens the library `fileName` (found as the dynamic loader finds libraries) and finds its functions.
    static func open(_ fileName: String = fileName) -> Result<LibPQ, PostgresError> {
        // Kept open for the life of the process: connections hold pointers into it.
        guard let library = dlopen(fileName, RTLD_LAZY | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(
                PostgresError(
                    .connectionFailed,
                    "the PostgreSQL client library \(fileName) cannot be opened (\(reason)); install it (Debian: "
                        + "apt-get install libpq5) to use a PostgreSQL store"))
        }
        do {
            return .success(try LibPQ(library, fileName: fileName))
        } catch {
            dlclose(library)
            return .failure(error)
        }
    }

    /// Finds every function in the opened `library`.
    private init(_ library: UnsafeMutableRawPointer, fileName: String) throws(PostgresError) {
        func function<Function>(_ name: String) throws(PostgresError) -> Function {
            guard let address = dlsym(library, name) else {
                throw PostgresError(
                    .connectionFailed,
                    "the PostgreSQL client library \(fileName) has no function \(name); install libpq 10 or later")
            }
            return unsafeBitCast(address, to: Function.self)
        }
        connectdbParams = try function("PQconnectdbParams")
        pingParams = try function("PQpingParams")
        status = try function("PQstatus")
        finish = try function("PQfinish")
        errorMessage = try function("PQerrorMessage")
        setNoticeReceiver = try function("PQsetNoticeReceiver")
        conndefaults = try function("PQconndefaults")
        conninfoParse = try function("PQconninfoParse")
        conninfo = try function("PQconninfo")
        conninfoFree = try function("PQconninfoFree")
        exec = try function("PQexec")
        execParams = try function("PQexecParams")
        prepare = try function("PQprepare")
        execPrepared = try function("PQexecPrepared")
        resultStatus = try function("PQresultStatus")
        resultErrorField = try function("PQresultErrorField")
        nfields = try function("PQnfields")
        ntuples = try function("PQntuples")
        fname = try function("PQfname")
        getvalue = try function("PQgetvalue")
        getisnull = try function("PQgetisnull")
        cmdTuples = try function("PQcmdTuples")
        clear = try function("PQclear")
        socket = try function("PQsocket")
        consumeInput = try function("PQconsumeInput")
        notifies = try function("PQnotifies")
        freemem = try function("PQfreemem")
        host = try function("PQhost")
        port = try function("PQport")
        user = try function("PQuser")
        db = try function("PQdb")
    }
}
