import MatterFlow
import MatterFlowJSON

extension BenchmarkSuite {
    /// How many runs' secrets the redaction figures keep: about what a worker keeps (the runs at once, and the last
    /// 256 started).
    static let redactionRuns = 300

    /// What taking secrets out of one line of a hub's standard error costs a worker that keeps the secrets of
    /// ``redactionRuns`` runs (each with a token of its own, all with the Thread dataset of the network they join): a
    /// line holding none, one holding one run's token, and one holding the dataset every run has.
    func sharedRedaction() async throws -> [BenchmarkResult] {
        let workflow = try WorkflowEngine().load(text: Self.secretInputsWorkflow, baseDirectory: workflowsDirectory)
        let shared = SharedSecrets(secretNames: OperationCatalog.standard.secretNames)
        let engine = WorkflowEngine()
        let hub = BenchmarkHub()
        for run in 0..<Self.redactionRuns {
            var options = RunOptions(structureID: "s\(run)", clock: ManualClock(), runID: "r\(run)")
            options.sharedSecrets = shared
            let result = try await engine.run(
                workflow, inputs: ["token": .string(Self.token(run)), "dataset": .string(Self.datasetHex)], on: hub, options: options)
            precondition(result.outcome == .succeeded, "the secret-holding run must succeed")
        }
        let lines: [(name: String, line: String, holds: Bool)] = [
            ("plain", "chip.controller: commissioning node 0x0000000000000011 on fabric 1: step SendPAKEParameterRequest done in 12 ms", false),
            ("token", "hub: retrying pairing of node 17 with \(Self.token(137)) after a CASE timeout (attempt 2 of 3)", true),
            ("dataset", "otbr-agent: set pending dataset \(Self.datasetHex) for the border router's network", true),
        ]
        var results: [BenchmarkResult] = []
        for (name, line, holds) in lines {
            precondition(shared.redacting(line).contains(RunOptions.redacted) == holds, "line \(name) must be redacted exactly when it holds a secret")
            let samples = Sampler.sample(warmUp: count(20), repetitions: count(400)) {
                _ = shared.redacting(line)
            }.map { $0 * 1e6 }
            results.append(
                BenchmarkResult(
                    name: "redact.sharedLine.\(name)", unit: "µs", median: Sampler.percentile(samples, 0.5),
                    p99: Sampler.percentile(samples, 0.99)))
        }
        return results
    }

    /// What a journaled run pays once to learn its onboarding payload's spellings (every code of the device, its
    /// passcode's groupings, each JSON- and percent-encoded): the payload taken in, and the first line redacted, which
    /// works them out. Each run of a worker pays it for its own payload.
    func learnPayload() -> BenchmarkResult {
        let line = "commissioning node 17 with MT:Y.K9042C00KA0648G00 (manual 3497-011-2332)"
        precondition(SecretRedactor([.string(Self.payload)]).redacting(line) == "commissioning node 17 with \(RunOptions.redacted) (manual \(RunOptions.redacted))")
        let samples = Sampler.sample(warmUp: count(20), repetitions: count(400)) {
            _ = SecretRedactor([.string(Self.payload)]).redacting(line)
        }.map { $0 * 1e6 }
        return BenchmarkResult(
            name: "redact.learnPayload", unit: "µs", median: Sampler.percentile(samples, 0.5), p99: Sampler.percentile(samples, 0.99))
    }

    /// Run `run`'s token: 16 hexadecimal digits of its own.
    static func token(_ run: Int) -> String {
        let digits = String(UInt64(run) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        return "tok-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    static let secretInputsWorkflow = #"""
        {"workflow": "secret-inputs", "version": 1, "start": "done",
         "inputs": {"token": {"type": "string", "required": true, "secret": true},
                    "dataset": {"type": "string", "required": true, "secret": true}},
         "states": {"done": {"type": "succeed"}}}
        """#
}
