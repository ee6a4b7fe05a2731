import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Testing

/// A journaled run keeps its output in its `runFinished` record, secrets redacted, for whoever reads the journal later.
@Suite("journaled outputs")
struct JournalOutputTests {
    @Test("a commissioning's device IDs are in its runFinished record and in runs --json, as run printed them")
    func deviceIDsAfterTheFact() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let run = await matterflowVirtual(["run", Repository.workflow("commission-device"), "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        let printed = try #require((try run.result()["output"] as? [String: Any])?["deviceIDs"] as? [String])
        #expect(printed.count == 1)

        let listed = await matterflow("runs", "--journal", journal, "--json")
        let output = (try parseJSON(listed.stdout) as? [[String: Any]])?.first?["output"] as? [String: Any]
        #expect(output?["deviceIDs"] as? [String] == printed, "\(listed.stdout)")
        let runID = try #require(try run.result()["runID"] as? String)
        let finished = try RunJournal(existingDirectory: journal).read(runID: runID).records.last
        #expect(finished?.type == "runFinished")
        #expect(finished?.payload["output"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue) == printed)
    }

    @Test("--show-secrets with --journal says the journal keeps the secrets in clear; without it nothing is said")
    func showSecretsIntoTheJournalIsSaid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let shown = await matterflowVirtual(
            ["run", Repository.workflow("commission-device"), "--journal", journal, "--trace", "none", "--show-secrets"] + commissionInputs())
        #expect(shown.code == 0, "\(shown.stderr)")
        #expect(shown.stderr.contains("note: --show-secrets keeps this run's secrets in clear in its journal file in \(journal)"), "\(shown.stderr)")
        let hidden = await matterflowVirtual(["run", Repository.workflow("commission-device"), "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(hidden.code == 0 && !hidden.stderr.contains("--show-secrets keeps"), "\(hidden.stderr)")
    }

    @Test("epskc-share's key is redacted in the journaled output; the output is kept otherwise, and a failed run keeps none")
    func secretOutputRedacted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let share = await matterflowVirtual([
            "run", Repository.workflow("epskc-share"), "--home", Repository.root + "/Examples/border-router-home.json", "--journal", journal,
            "--trace", "none",
        ])
        #expect(share.code == 0, "\(share.stderr)")
        let key = try #require((try share.result()["output"] as? [String: Any])?["epskc"] as? String)
        let runID = try #require(try share.result()["runID"] as? String)
        let finished = try RunJournal(existingDirectory: journal).read(runID: runID).records.last
        #expect(finished?.payload["output"]?["epskc"] == "<redacted>")
        #expect(finished?.payload["output"]?["shared"] == true)
        let file = try String(contentsOfFile: RunJournal(existingDirectory: journal).path(of: runID), encoding: .isoLatin1)
        #expect(!file.contains(key))

        let failed = await matterflowVirtual([
            "run", Repository.workflow("epskc-share"), "--home", Repository.root + "/Examples/border-router-basic-home.json",
            "--journal", journal, "--trace", "none",
        ])
        #expect(failed.code == 1)
        let failedID = try #require(try failed.result()["runID"] as? String)
        let failedEnd = try RunJournal(existingDirectory: journal).read(runID: failedID).records.last
        #expect(failedEnd?.type == "runFinished" && failedEnd?.payload["output"] == nil)
    }

    @Test("a run that succeeded with a warning (its device left unconfigured) is listed with the warning in its notes")
    func warningsListed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let run = await matterflowVirtual(
            ["run", Repository.workflow("commission-device"), "--journal", journal, "--trace", "none"]
                + commissionInputs(room: "Nowhere"))
        #expect(run.code == 0, "\(run.stderr)")
        let warning = try #require((try run.result()["warnings"] as? [String])?.first)
        #expect(warning.contains("could not be configured"))

        let listed = await matterflow("runs", "--journal", journal)
        #expect(listed.stdout.contains(" succeeded ") && listed.stdout.contains("warning: \(warning)"), "\(listed.stdout)")
        let json = try #require((try parseJSON(await matterflow("runs", "--journal", journal, "--json").stdout) as? [[String: Any]])?.first)
        #expect(json["notes"] as? [String] == ["warning: \(warning)"], "\(json)")

        let clean = await matterflowVirtual(
            ["run", Repository.workflow("commission-device"), "--journal", directory.file("clean"), "--trace", "none"] + commissionInputs())
        #expect(clean.code == 0, "\(clean.stderr)")
        let cleanJSON = (try parseJSON(await matterflow("runs", "--journal", directory.file("clean"), "--json").stdout) as? [[String: Any]])?.first
        #expect(cleanJSON?["notes"] as? [String] == [], "a run without warnings has no notes")
    }
}
