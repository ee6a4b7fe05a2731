import MatterFlow
import MatterFlowJSON
import Testing

/// A value a state builds from its template is bounded: one that grows at each step (a string or a list holding
/// itself twice) fails the state with `valueTooLarge` instead of taking all the memory there is.
@Suite struct ValueLimitTests {
    /// `init` sets `x` to `first`; each of 40 states sets `x` to `doubled`, which holds `x` twice.
    static func doubling(first: String, doubled: String) -> String {
        var states = [#""init": {"type": "assign", "set": {"x": \#(first)}, "next": "s0"}"#]
        for index in 0..<40 {
            states.append(#""s\#(index)": {"type": "assign", "set": {"x": \#(doubled)}, "next": "s\#(index + 1)"}"#)
        }
        states.append(#""s40": {"type": "succeed"}"#)
        return #"{"workflow": "d", "version": 1, "start": "init", "states": {\#(states.joined(separator: ", "))}}"#
    }

    func run(_ text: String) async throws -> RunResult {
        let options = RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 1))
        return try await WorkflowEngine().run(try loadWorkflow(text), inputs: [:], on: ScriptedHub(), options: options)
    }

    @Test("a string that doubles at each state fails with valueTooLarge once past 16 MiB, naming the state")
    func doublingString() async throws {
        let result = try await run(Self.doubling(first: #""abcdefgh""#, doubled: #""${vars.x}${vars.x}""#))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .valueTooLarge && result.error?.code == .resourceExhausted, "\(String(describing: result.error))")
        // 8 bytes doubled 21 times is 16 MiB; the 22nd doubling passes it.
        #expect(result.error?.state == "s21", "\(String(describing: result.error))")
    }

    @Test("a list holding the last one twice at each state fails alike, though its copies share their storage")
    func doublingList() async throws {
        let result = try await run(Self.doubling(first: #""abcdefgh""#, doubled: #"["${vars.x}", "${vars.x}"]"#))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .valueTooLarge, "\(String(describing: result.error))")
    }

    @Test("a list of two strings each put together from the last value fails as a list once past 16 MiB, not later as a string")
    func doublingListOfInterpolations() async throws {
        let result = try await run(Self.doubling(first: #""abcdefgh""#, doubled: #"["${vars.x}", "${vars.x}!"]"#))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .valueTooLarge, "\(String(describing: result.error))")
        #expect(result.error?.message.contains("a list") == true, "\(String(describing: result.error))")
    }

    /// A parent that doubles `x` from 8 bytes to 1 MiB, then maps `body.json` (which returns its input `blob`) over
    /// `count` items, `concurrency` at a time, with `blob` set to `x`.
    static func mappingBlobs(count: Int, concurrency: Int, first: String = "abcdefgh") throws -> Workflow {
        var states = [#""init": {"type": "assign", "set": {"x": "\#(first)"}, "next": "s0"}"#]
        for index in 0..<17 {
            states.append(#""s\#(index)": {"type": "assign", "set": {"x": "${vars.x}${vars.x}"}, "next": "s\#(index + 1)"}"#)
        }
        let items = (0..<count).map { "\"d\($0)\"" }.joined(separator: ", ")
        states.append(
            #""s17": {"type": "map", "items": [\#(items)], "as": "id", "maxItems": \#(count), "concurrency": \#(concurrency), "path": "body.json", "inputs": {"blob": "${vars.x}"}, "result": "blobs", "next": "done"}"#)
        states.append(#""done": {"type": "succeed", "output": "${vars.blobs.succeeded}"}"#)
        let parent = #"{"workflow": "p", "version": 1, "start": "init", "states": {\#(states.joined(separator: ", "))}}"#
        let body = #"{"workflow": "body", "version": 1, "start": "done", "inputs": {"blob": {"type": "string", "required": true}}, "states": {"done": {"type": "succeed", "output": "${input.blob}"}}}"#
        let directory = try WorkflowDirectory("blobs", files: ["parent.json": parent, "body.json": body])
        defer { directory.remove() }
        return try WorkflowEngine().load(path: directory.path + "/parent.json")
    }

    @Test("a map state whose elements each return a large value fails with valueTooLarge once its results pass 16 MiB, one element at a time or several", arguments: [1, 4])
    func mapResultsAreBounded(concurrency: Int) async throws {
        let options = RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 1))
        let many = try await WorkflowEngine().run(try Self.mappingBlobs(count: 20, concurrency: concurrency), inputs: [:], on: ScriptedHub(), options: options)
        #expect(many.outcome == .failed)
        #expect(many.error?.cause == .valueTooLarge && many.error?.state == "s17", "\(String(describing: many.error))")
        #expect(many.error?.message.contains("the results of map state s17 grow larger than 16 MiB as JSON at element") == true, "\(String(describing: many.error))")
        // Fifteen 1 MiB outputs fit.
        let fewer = try await WorkflowEngine().run(try Self.mappingBlobs(count: 15, concurrency: concurrency), inputs: [:], on: ScriptedHub(), options: options)
        #expect(fewer.outcome == .succeeded && fewer.output == 15, "\(String(describing: fewer.error))")
    }

    @Test("the limit counts a value as JSON writes it: control characters escaped in six bytes each")
    func escapesCount() async throws {
        let options = RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 1))
        // 1 MiB of U+0001 is 6 MiB as JSON: three elements' outputs pass 16 MiB.
        let controls = String(repeating: #"\u0001"#, count: 8)
        let mapped = try await WorkflowEngine().run(
            try Self.mappingBlobs(count: 4, concurrency: 1, first: controls), inputs: [:], on: ScriptedHub(), options: options)
        #expect(mapped.error?.cause == .valueTooLarge && mapped.error?.message.contains("at element 2;") == true, "\(String(describing: mapped.error))")
        // A string doubling from 8 control characters passes 16 MiB as JSON two doublings before 8 letters do (s21).
        let doubled = try await run(Self.doubling(first: "\"\(controls)\"", doubled: #""${vars.x}${vars.x}""#))
        #expect(doubled.error?.cause == .valueTooLarge && doubled.error?.state == "s18", "\(String(describing: doubled.error))")
    }

    @Test("a value under the limit is built as before")
    func underTheLimit() async throws {
        let text = #"{"workflow": "d", "version": 1, "start": "a", "states": {"a": {"type": "assign", "set": {"x": "ab"}, "next": "b"}, "b": {"type": "assign", "set": {"y": ["${vars.x}${vars.x}", {"k": "${vars.x}"}]}, "next": "done"}, "done": {"type": "succeed", "output": "${vars.y}"}}}"#
        let result = try await run(text)
        #expect(result.outcome == .succeeded)
        #expect(result.output == ["abab", ["k": "ab"]])
    }
}
