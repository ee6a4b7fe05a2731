import MatterFlow
import MatterFlowJSON

/// JSON-RPC error objects and the ``FlowError`` they carry (docs/hub-protocol.md, section 4).
enum WireError {
    static let parseError = -32700
    static let invalidRequest = -32600
    static let methodNotFound = -32601
    static let invalidParams = -32602
    static let notInitialized = -32002
    static let hubError = -32000

    /// The error object a hub sends for `error`.
    static func json(_ error: FlowError) -> JSONValue {
        let rpcCode = error.cause == .invalidArgumentValue ? invalidParams : hubError
        return [
            "code": .int(rpcCode), "message": .string(error.message),
            "data": ["code": .string(error.code.rawValue), "cause": .string(error.cause.rawValue), "message": .string(error.message)],
        ]
    }

    /// A plain JSON-RPC error without `data`.
    static func json(code: Int, message: String) -> JSONValue {
        ["code": .int(code), "message": .string(message)]
    }

    /// The ``FlowError`` an error object from a hub stands for; `method` names the call in messages.
    static func flowError(_ value: JSONValue, method: String) -> FlowError {
        let rpcCode = value["code"]?.intValue
        let rpcMessage = value["message"]?.stringValue ?? ""
        if let data = value["data"]?.objectValue, let codeName = data["code"]?.stringValue,
            let code = ErrorCode(rawValue: codeName), let causeName = data["cause"]?.stringValue, !causeName.isEmpty
        {
            let message = data["message"]?.stringValue ?? rpcMessage
            return FlowError(code: code, cause: ErrorCause(rawValue: causeName), message: message)
        }
        let detail = rpcMessage.isEmpty ? "" : ": \(LineQuote.masked(rpcMessage, limit: 200))"
        switch rpcCode {
        case methodNotFound?:
            return FlowError(.notSupported, "the hub does not support \(method)\(detail)")
        case invalidParams?:
            return FlowError(.invalidArgumentValue, "the hub refused the arguments of \(method)\(detail)")
        case hubError?:
            return FlowError(
                .hubFailure,
                "the hub answered \(method) with an error whose data lacks a valid code and cause (see docs/hub-protocol.md, section 4)\(detail)")
        default:
            let code = rpcCode.map(String.init) ?? "no code"
            return FlowError(.hubFailure, "the hub answered \(method) with JSON-RPC error \(code)\(detail)")
        }
    }
}
