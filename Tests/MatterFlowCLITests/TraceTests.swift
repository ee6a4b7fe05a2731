import Foundation
import Testing

/// `--trace text|jsonl|none`: progress on stderr, never the onboarding payload unless `--show-secrets`.
@Suite("matterflow run --trace")
struct TraceTests {
    /// Every stderr line parsed as one JSON object; fails when a line is anything else.
    static func events(_ stderr: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                "not a JSON object: \(line)", sourceLocation: sourceLocation)
        }
    }

    private func run(_ extra: [String], payload: String = Payloads.specQR) async throws -> ToolRun {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        return await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home] + extra + commissionInputs(payload: payload))
    }

    @Test("jsonl: one JSON event per line, covering the whole run, with no secret")
    func jsonl() async throws {
        let run = try await run(["--trace", "jsonl"])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(!run.stderr.isEmpty)
        #expect(run.stderr.hasSuffix("\n"))
        let events = try Self.events(run.stderr)
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.count == events.count, "every event has a name")
        for name in ["runStarted", "stateEntered", "guardChecked", "hubCallStarted", "hubCallFinished", "transitionTaken", "runFinished"] {
            #expect(names.contains(name), "trace has \(name)")
        }
        #expect(names.first == "runStarted")
        #expect(names.last == "runFinished")
        #expect(events.last?["outcome"] as? String == "succeeded")
        #expect(events.last?["holdsSession"] == nil, "completing the commissioning released the session")
        // Every event belongs to the same run as the result.
        let runID = try run.result()["runID"] as? String
        #expect(events.allSatisfy { $0["runID"] as? String == runID })
        // Each hub call that started also finished, with a duration.
        let started = events.filter { $0["event"] as? String == "hubCallStarted" }.compactMap { $0["operation"] as? String }
        let finished = events.filter { $0["event"] as? String == "hubCallFinished" }
        #expect(started == finished.compactMap { $0["operation"] as? String })
        #expect(finished.allSatisfy { $0["durationSeconds"] is NSNumber })
        for operation in ["prepareCommissioning", "createAddDeviceRequest", "commissionDevice", "fetchRooms", "configureDevice", "completeCommissioning"] {
            #expect(started.contains(operation), "trace has a call to \(operation)")
        }
        let guards = events.filter { $0["event"] as? String == "guardChecked" }.compactMap { $0["guard"] as? String }
        #expect(Set(guards) == ["permission", "hubReachable", "noActiveSession"])
        // The payload is secret: not in the trace, in neither form.
        #expect(!run.stderr.contains(Payloads.specQR))
        #expect(!run.stderr.contains("Y.K9042C00KA0648G00"))
    }

    @Test("jsonl: a run that ends holding its commissioning session says so in runFinished")
    func jsonlHoldsSession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let run = await matterflow(["run", Repository.workflow("prepare"), "--home", home, "--trace", "jsonl"])
        #expect(run.code == 0, "\(run.stderr)")
        let last = try #require(try Self.events(run.stderr).last)
        #expect(last["event"] as? String == "runFinished")
        #expect(last["holdsSession"] as? Bool == true)
    }

    @Test("jsonl with --show-secrets shows the onboarding payload")
    func showSecrets() async throws {
        let run = try await run(["--trace", "jsonl", "--show-secrets"])
        #expect(run.code == 0, "\(run.stderr)")
        let events = try Self.events(run.stderr)
        let started = try #require(events.first { $0["event"] as? String == "runStarted" })
        #expect((started["inputs"] as? [String: Any])?["onboardingPayload"] as? String == Payloads.specQR)
        let commission = try #require(events.first {
            $0["event"] as? String == "hubCallStarted" && $0["operation"] as? String == "commissionDevice"
        })
        #expect((commission["arguments"] as? [String: Any])?["onboardingPayload"] as? String == Payloads.specQR)
    }

    @Test("the default text trace is for people: not JSON, and no secret")
    func text() async throws {
        let run = try await run([])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stderrLines.count > 10)
        #expect(run.stderr.contains("commissionDevice"))
        #expect(!run.stderr.contains(Payloads.specQR))
        #expect((try? JSONSerialization.jsonObject(with: Data((run.stderrLines.first ?? "").utf8))) == nil)
        // stdout still holds only the result.
        #expect(try run.result()["outcome"] as? String == "succeeded")
    }

    @Test("--trace text equals the default")
    func explicitText() async throws {
        let implicit = try await run([])
        let explicit = try await run(["--trace", "text"])
        func normalized(_ text: String) -> [String] {
            // Run IDs differ between runs; the lines are otherwise the same.
            text.split(separator: "\n").map { String($0).replacing(/run-[0-9a-f]+/, with: "run-*") }
        }
        #expect(normalized(implicit.stderr) == normalized(explicit.stderr))
    }

    @Test("--trace none prints nothing on stderr for a successful run")
    func none() async throws {
        let run = try await run(["--trace", "none"])
        #expect(run.code == 0)
        #expect(run.stderr == "")
        #expect(try run.result()["outcome"] as? String == "succeeded")
    }

    @Test("a secret stays hidden when the run refuses it")
    func secretInFailure() async throws {
        let bad = "MT:SECRETSECRET"
        let run = try await run(["--trace", "jsonl"], payload: bad)
        #expect(run.code == 2)
        #expect(run.stderr.contains("/onboardingPayload"))
        #expect(!run.stderr.contains(bad))
        #expect(!run.stdout.contains(bad))
    }
}
