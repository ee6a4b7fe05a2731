import MatterFlowCLI
import Testing

/// What a usage line and a mistyped command tell a person at the terminal.
@Suite("usage lines and mistyped commands")
struct UsageTextTests {
    /// The usage line printed for a command run without what it needs.
    private func usageLine(_ arguments: [String]) async -> String {
        let run = await matterflow(arguments)
        #expect(run.code == 64, "\(run.stderr)")
        return run.stderr.split(separator: "\n").first { $0.hasPrefix("Usage: ") }.map(String.init) ?? run.stderr
    }

    @Test("an option a command cannot go without is shown outside brackets; two that stand in for each other, as one choice")
    func requiredOptions() async {
        for command in [["submit", "x.json"], ["worker"], ["store", "migrate"], ["answer", "run-1"], ["cancel", "run-1"], ["watch", "run-1"], ["workers"]] {
            let usage = await usageLine(command)
            #expect(usage.contains(" --store <url>") && !usage.contains("[--store"), "\(usage)")
        }
        let prune = await usageLine(["store", "prune"])
        // --older-than may give way to --run or --structure, so it is shown as optional.
        #expect(prune.contains(" --store <url> ") && prune.contains(" [--older-than <age>] ") && prune.contains(" [--structure <id>] ..."), "\(prune)")
        let recover = await usageLine(["recover"])
        #expect(recover.contains("recover --journal <dir> [--state <dir>]"), "\(recover)")
        for command in [["runs"], ["history", "run-1"]] {
            let usage = await usageLine(command)
            #expect(usage.contains(" (--journal <dir> | --store <url>) ") && !usage.contains("[--store"), "\(usage)")
        }
    }

    @Test("a mistyped command is answered with the one meant: by help, in a group's name, or a subcommand's", arguments: [
        (["help", "rnu"], "Unknown subcommand 'rnu'; did you mean 'run'?"),
        (["stor", "migrate", "--store", "x"], "Unknown subcommand 'stor'; did you mean 'store migrate'?"),
        (["hbu", "check"], "Unknown subcommand 'hbu'; did you mean 'hub check'?"),
        (["help", "store", "migrat"], "Unknown subcommand 'store migrat'; did you mean 'store migrate'?"),
        (["stroe"], "Unknown subcommand 'stroe'; did you mean 'store'?"),
        (["rnu", "Workflows/commission-device.json"], "Unknown subcommand 'rnu'; did you mean 'run'?"),
        (["help", "runz"], "Unknown subcommand 'runz'; did you mean 'run' or 'runs'?"),
        (["runz", "--journal", "j"], "Unknown subcommand 'runz'; did you mean 'run' or 'runs'?"),
    ])
    func mistypedCommands(arguments: [String], message: String) async {
        let run = await matterflow(arguments)
        #expect(run.code == 64)
        #expect(run.stderr.hasPrefix("Error: \(message)\n"), "\(run.stderr)")
    }

    @Test("payload given a word close to generate points to payload generate")
    func payloadGenerateMistyped() async {
        let run = await matterflow(["payload", "genrate"])
        #expect(run.code == 2)
        #expect(run.stderr.contains("note: to make a code, run `matterflow payload generate`"), "\(run.stderr)")
        let code = await matterflow(["payload", "MT:Y.K9042C00KA0648G0"])
        #expect(!code.stderr.contains("payload generate"), "\(code.stderr)")
    }
}

extension UsageTextTests {
    @Test("an argument that is not UTF-8 text (typed in a Latin-1 terminal) is a usage error naming it, never read with replacement characters")
    func argumentNotUTF8() async {
        let err = CapturedText()
        let raw: [[UInt8]] = [Array("run".utf8), Array("w.json".utf8), Array("--input".utf8), Array("deviceName=K".utf8) + [0xFC] + Array("che".utf8)]
        let code = await MatterflowTool.main(rawArguments: raw, environment: ToolEnvironment(standardOutput: CapturedText(), standardError: err))
        #expect(code == 64)
        #expect(err.text.hasPrefix("Error: argument 4 (the value of deviceName) is not UTF-8 text: byte 0xFC at byte 13 of it;"), "\(err.text)")
        // A secret's value is never shown, whatever the byte.
        let secret = CapturedText()
        let leaked = await MatterflowTool.main(
            rawArguments: [Array("run".utf8), Array("onboardingPayload=MT:Y.K9042C00KA0648G00".utf8) + [0xA0]],
            environment: ToolEnvironment(standardOutput: CapturedText(), standardError: secret))
        #expect(leaked == 64)
        #expect(!secret.text.contains("Y.K9042C00KA0648G00") && secret.text.contains("(the value of onboardingPayload)"), "\(secret.text)")
        let fine = await MatterflowTool.main(rawArguments: [Array("--version".utf8)], environment: ToolEnvironment(standardOutput: CapturedText(), standardError: err))
        #expect(fine == 0)
    }
}
