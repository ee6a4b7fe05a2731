import Foundation
import MatterFlowJSON
import ThreadDataset

/// `matterflow dataset HEX`: decodes and validates a Thread Active Operational Dataset.
struct DatasetCommand {
    static let spec = CommandSpec(
        name: "dataset",
        abstract: "Decode and validate a Thread Operational Dataset (hex TLVs).",
        arguments: [
            ("<hex>", "The dataset as hex, as `ot-ctl dataset active -x` prints it; - reads it from standard input (it holds the Network Key: off the command line, which other users see in ps).", false)
        ],
        options: [
            .init(name: "json", valueName: nil, help: "Print the decoded fields as one JSON object."),
            .init(name: "reveal-secrets", valueName: nil, help: "Show the Network Key and PSKc (hidden by default)."),
        ],
        discussion: """
            Without --json the dataset is listed as OpenThread's `dataset active` lists it. The Network Key and
            PSKc are shown as [redacted] ("redacted" in JSON) unless --reveal-secrets is given.

            JSON keys: channel, channelPage, panId, extPanId, networkName, meshLocalPrefix, networkKey, pskc,
            activeTimestamp {seconds, ticks, authoritative}, pendingTimestamp and delayTimer (when present),
            wakeupChannel (when present), securityPolicy {rotationHours, flags}, channelMask (page-0 channels),
            unknownTlvs [{type, name, value}], complete, missing, errors and warnings (each [{code, message}], as
            stderr lists them). A field that is absent is null. Input that is no dataset at all (not hex, cut short,
            a TLV twice) prints {"errors": [...]} alone.

            `ot-ctl dataset active -x | matterflow dataset -` (or `matterflow dataset - < FILE`) keeps the dataset,
            and its Network Key, out of the process list.

            Exit status: 0 when the dataset is well formed and a complete Active Operational Dataset; 2 otherwise,
            with each problem on stderr. Warnings (values a Thread stack adjusts) go to stderr too.
            """)

    /// What `networkKey` and `pskc` hold in JSON unless secrets are revealed.
    static let redacted = "redacted"

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() -> Int32 {
        let out = environment.standardOutput
        let err = environment.standardError
        var text = arguments.positionals[0]
        if text == "-" {
            do {
                text = try ToolEnvironment.standardInputText(
                    environment.standardInputPath, piping: "pipe the dataset's hex in (`ot-ctl dataset active -x | matterflow dataset -`)")
            } catch {
                MatterflowTool.report(error.diagnostics, to: err)
                var problems = ProblemList()
                problems.append(contentsOf: error.diagnostics)
                return refused(problems)
            }
        }
        let given = Self.withoutCommandStatus(text)
        if let problem = Self.notHex(given) {
            err.line("error[\(problem.code)]: \(problem.message)")
            var problems = ProblemList()
            problems.append(code: problem.code, message: problem.message)
            return refused(problems)
        }
        let diagnosis = OperationalDataset.diagnose(hex: given)
        let reveal = arguments.flag("reveal-secrets")
        var errors = ProblemList()
        var warnings = ProblemList()
        for error in diagnosis.parseErrors {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            errors.append(code: error.code.rawValue, message: error.message)
        }
        for issue in diagnosis.validation?.issues ?? [] {
            err.line("\(issue.severity.rawValue)[\(issue.code.rawValue)]: \(issue.message)")
            switch issue.severity {
            case .error: errors.append(code: issue.code.rawValue, message: issue.message)
            case .warning: warnings.append(code: issue.code.rawValue, message: issue.message)
            }
        }
        guard let dataset = diagnosis.dataset, let validation = diagnosis.validation else {
            return refused(errors)
        }
        if arguments.flag("json") {
            var object = Self.json(dataset, validation: validation, revealingSecrets: reveal)
            object["errors"] = errors.json
            object["warnings"] = warnings.json
            out.line(JSONWriter.pretty(.object(object)))
        } else {
            for line in dataset.summaryLines(revealingSecrets: reveal) { out.line(line) }
            out.line("Complete: " + (validation.isComplete ? "yes" : "no"))
            if !validation.missing.isEmpty {
                out.line("Missing: " + validation.missing.map(\.name).joined(separator: ", "))
            }
        }
        return diagnosis.isComplete ? ExitCode.success : ExitCode.invalidInput
    }

    /// The text without the `Done` line `ot-ctl` prints after the hex (`"$(ot-ctl dataset active -x)"` holds it).
    static func withoutCommandStatus(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasSuffix("Done"), let lineBreak = trimmed.dropLast(4).lastIndex(where: { $0.isNewline }),
            trimmed[trimmed.index(after: lineBreak)...].trimmingCharacters(in: .whitespaces) == "Done"
        else { return text }
        return String(trimmed[..<lineBreak])
    }

    /// Exit 2 for input that is no dataset, with `{"errors": [...]}` on stdout under `--json`.
    private func refused(_ problems: ProblemList) -> Int32 {
        problems.refuse(json: arguments.flag("json"), to: environment.standardOutput)
    }

    /// Why the argument is no dataset to decode at all (nothing, an unset variable's, or the name of a file), with
    /// its code; nil otherwise.
    static func notHex(_ text: String) -> (code: String, message: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return ("emptyDataset", "the dataset is empty; pass it as hex, as `ot-ctl dataset active -x` prints it") }
        if FileManager.default.fileExists(atPath: trimmed), !Hex.holdsOnlyHexCharacters(trimmed) {
            return ("invalidHexCharacter", "\(trimmed) is a file: pass its contents on standard input, as in matterflow dataset - < \(ShellWord.quoted(trimmed))")
        }
        return nil
    }

    /// The dataset's fields as the documented JSON object (its errors and warnings added by the caller).
    static func json(_ dataset: OperationalDataset, validation: DatasetValidation, revealingSecrets reveal: Bool) -> JSONObject {
        func timestamp(_ value: ThreadTimestamp?) -> JSONValue {
            guard let value else { return .null }
            return [
                "seconds": .int(Int(value.seconds)), "ticks": .int(Int(value.ticks)),
                "authoritative": .bool(value.isAuthoritative),
            ]
        }
        func secret(_ hex: String?) -> JSONValue {
            guard let hex else { return .null }
            return .string(reveal ? hex : redacted)
        }
        var object = JSONObject()
        object["channel"] = dataset.channel.map { .int(Int($0.number)) } ?? .null
        object["channelPage"] = dataset.channel.map { .int(Int($0.page)) } ?? .null
        object["panId"] = dataset.panID.map { .int(Int($0)) } ?? .null
        object["extPanId"] = dataset.extendedPANID.map { .string($0.hexString) } ?? .null
        object["networkName"] = dataset.networkName.map { .string($0.value) } ?? .null
        object["meshLocalPrefix"] = dataset.meshLocalPrefix.map { .string($0.description) } ?? .null
        object["networkKey"] = secret(dataset.networkKey?.revealedHex)
        object["pskc"] = secret(dataset.pskc?.revealedHex)
        object["activeTimestamp"] = timestamp(dataset.activeTimestamp)
        if let pending = dataset.pendingTimestamp { object["pendingTimestamp"] = timestamp(pending) }
        if let delay = dataset.delayTimer { object["delayTimer"] = .int(Int(delay)) }
        if let wakeup = dataset.wakeupChannel { object["wakeupChannel"] = .int(Int(wakeup.number)) }
        object["securityPolicy"] = dataset.securityPolicy.map { policy in
            ["rotationHours": .int(Int(policy.rotationHours)), "flags": .string(policy.flagsHex)]
        } ?? .null
        object["channelMask"] = dataset.channelMask.map { .array($0.page0Channels.sorted().map(JSONValue.int)) } ?? .null
        object["unknownTlvs"] = .array(dataset.unknownTLVs.map { tlv in
            ["type": .int(Int(tlv.type.rawValue)), "name": .string(tlv.type.name), "value": .string(tlv.valueHex)]
        })
        object["complete"] = .bool(validation.isComplete)
        object["missing"] = .array(validation.missing.map { .string($0.name) })
        return object
    }
}
