import MatterFlowCLI
import MatterFlowHubProtocol
import MatterFlowJournal
import MatterFlowStore
import Testing

/// Help, version and usage errors: help on stdout with exit 0, mistakes on stderr with a hint and exit 64.
@Suite("CLI usage")
struct UsageTests {
    @Test("--help, -h and help print the overview on stdout", arguments: [["--help"], ["-h"], ["help"]])
    func overview(arguments: [String]) async {
        let run = await matterflow(arguments)
        #expect(run.code == 0)
        #expect(run.stderr == "")
        #expect(run.stdout.hasPrefix("OVERVIEW: "))
        #expect(run.stdout.contains("USAGE: matterflow <subcommand> [options]"))
        for command in ["run", "validate", "operations"] {
            #expect(run.stdout.contains("\n  \(command) "), "overview lists \(command)")
        }
    }

    @Test("the three ways to ask for help print the same overview")
    func overviewsAgree() async {
        let long = await matterflow("--help")
        let short = await matterflow("-h")
        let word = await matterflow("help")
        #expect(long.stdout == short.stdout)
        #expect(long.stdout == word.stdout)
    }

    @Test("help CMD equals CMD --help and CMD -h", arguments: ["run", "validate", "operations"])
    func commandHelp(command: String) async {
        let viaHelp = await matterflow("help", command)
        let viaFlag = await matterflow(command, "--help")
        let viaShortFlag = await matterflow(command, "-h")
        #expect(viaHelp.code == 0)
        #expect(viaFlag.code == 0)
        #expect(viaShortFlag.code == 0)
        #expect(viaHelp.stderr == "")
        #expect(viaFlag.stderr == "")
        #expect(viaHelp.stdout == viaFlag.stdout)
        #expect(viaHelp.stdout == viaShortFlag.stdout)
        #expect(viaHelp.stdout.contains("USAGE: matterflow \(command)"))
    }

    @Test("run --help documents every option and the exit codes")
    func runHelpContents() async {
        let run = await matterflow("run", "--help")
        for option in ["--home <file>", "--state <dir>", "--input <name=value>", "--inputs <file>", "--trace <format>", "--show-secrets"] {
            #expect(run.stdout.contains(option), "run --help mentions \(option)")
        }
        #expect(run.stdout.contains("130"))
        #expect(run.stdout.contains("64"))
    }

    @Test("--help wins over a missing argument")
    func helpBeforeArgumentCheck() async {
        let run = await matterflow("validate", "--help")
        #expect(run.code == 0)
        #expect(run.stdout.contains("USAGE: matterflow validate <file> ..."))
    }

    @Test("--version prints the version")
    func version() async {
        let run = await matterflow("--version")
        #expect(run.code == 0)
        #expect(
            run.stdout == "matterflow \(MatterflowTool.version) (store schema \(StoreMigrations.latest), journal format "
                + "\(JournalFrame.formatVersion), hub protocol \(HubMethod.protocolVersion))\n", "\(run.stdout)")
        #expect(run.stderr == "")
    }

    @Test("no subcommand at all is a usage error with the overview on stderr")
    func noSubcommand() async {
        let run = await matterflow([])
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("Error: Missing subcommand"))
        #expect(run.stderr.contains("USAGE: matterflow <subcommand> [options]"))
    }

    @Test("an unknown subcommand: Error, Usage and a hint on stderr, exit 64")
    func unknownSubcommand() async {
        let run = await matterflow("frobnicate")
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(
            run.stderr == """
                Error: Unknown subcommand 'frobnicate'
                Usage: matterflow <subcommand> [options]
                  See 'matterflow --help' for more information.

                """)
    }

    @Test("a misspelled subcommand gets a did-you-mean hint")
    func misspelledSubcommand() async {
        let run = await matterflow("valdate", "x.json")
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("Error: Unknown subcommand 'valdate'; did you mean 'validate'?\nUsage: "))
        #expect(run.stderr.contains("See 'matterflow --help'"))
    }

    @Test("a misspelt option of the tool itself is an unknown option with its hint, not a subcommand")
    func misspelledToolOption() async {
        let run = await matterflow("--versio")
        #expect(run.code == 64)
        #expect(run.stderr.hasPrefix("Error: Unknown option '--versio'; did you mean '--version'?\nUsage: "), "\(run.stderr)")
    }

    @Test("help for an unknown subcommand is a usage error")
    func helpForUnknownSubcommand() async {
        let run = await matterflow("help", "frobnicate")
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("Error: Unknown subcommand 'frobnicate'\n"))
    }

    @Test(
        "help for a group of two-word subcommands lists them with their abstracts",
        arguments: [("hub", ["hub serve", "hub check"]), ("store", ["store migrate", "store prune"])])
    func helpForGroup(group: String, members: [String]) async {
        let run = await matterflow("help", group)
        #expect(run.code == 0)
        #expect(run.stderr == "")
        #expect(run.stdout.contains("USAGE: matterflow \(group) <subcommand> [options]"))
        for member in members {
            let abstract = await matterflow(member.split(separator: " ").map(String.init) + ["--help"]).stdout
                .split(separator: "\n").first.map { String($0.dropFirst("OVERVIEW: ".count)) } ?? ""
            #expect(run.stdout.contains("\n  \(member) "), "lists \(member)")
            #expect(!abstract.isEmpty && run.stdout.contains(abstract), "shows the abstract of \(member)")
        }
        let viaFlag = await matterflow(group, "--help")
        #expect(viaFlag.code == 0)
        #expect(viaFlag.stdout == run.stdout)
    }

    @Test("a group's first word alone is a usage error that lists its subcommands", arguments: ["hub", "store"])
    func bareGroup(group: String) async {
        let help = await matterflow("help", group)
        let run = await matterflow(group)
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderr == "Error: Missing subcommand after '\(group)'\n\n" + help.stdout)
    }

    @Test("an unknown subcommand of a group names the group's subcommands, not other commands")
    func unknownGroupMember() async {
        let run = await matterflow("hub", "serv")
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderrLines.first == "Error: Unknown subcommand 'hub serv'; did you mean 'hub serve'?")
        #expect(run.stderr.contains("\n  hub check "))
        let viaHelp = await matterflow("help", "hub", "serv")
        #expect(viaHelp.code == 64)
        #expect(viaHelp.stderrLines.first == "Error: Unknown subcommand 'hub serv'; did you mean 'hub serve'?")
    }

    @Test("an unknown option: the command's usage and a hint on stderr, exit 64")
    func unknownOption() async {
        let run = await matterflow("run", Repository.workflow("cancel"), "--hme", "x.json")
        #expect(run.code == 64)
        #expect(run.stdout == "")
        let lines = run.stderrLines
        #expect(lines.count == 3)
        #expect(lines.first == "Error: Unknown option '--hme'; did you mean '--home'?")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: matterflow run <workflow> [--home <file>]") == true)
        #expect(lines.last == "  See 'matterflow run --help' for more information.")
    }

    @Test(
        "other usage mistakes exit 64 with Error and Usage on stderr",
        arguments: [
            (["run"], "Error: Missing expected argument '<workflow>'"),
            (["validate"], "Error: Missing expected argument '<file>'"),
            (["run", "a.json", "b.json"], "Error: Unexpected argument 'b.json'; if 'a.json b.json' is one value, quote it"),
            (["payload", "3497", "011", "2332"], "Error: Unexpected argument '011'; if '3497 011 2332' is one value, quote it"),
            (["run", "a.json", "--home"], "Error: Missing value for '--home <file>'"),
            (["run", "a.json", "--show-secrets=yes"], "Error: Option '--show-secrets' takes no value"),
            (["run", "a.json", "--home", "x", "--home=y"], "Error: Option '--home' given more than once"),
            (["operations", "-x"], "Error: Unknown option '-x'"),
            (["operations", "extra"], "Error: Unexpected argument 'extra'"),
        ])
    func usageMistakes(arguments: [String], firstLine: String) async {
        let run = await matterflow(arguments)
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderrLines.first == firstLine)
        #expect(run.stderrLines.dropFirst().first?.hasPrefix("Usage: matterflow \(arguments[0])") == true)
        #expect(run.stderrLines.last == "  See 'matterflow \(arguments[0]) --help' for more information.")
    }

    @Test("--trace accepts only text, jsonl and none")
    func badTrace() async {
        let run = await matterflow("run", Repository.workflow("cancel"), "--trace", "bogus")
        #expect(run.code == 64)
        #expect(run.stdout == "")
        #expect(run.stderrLines.first == "Error: --trace must be text, jsonl or none, not 'bogus'")
        #expect(run.stderr.contains("Usage: matterflow run"))
        #expect(run.stderr.contains("See 'matterflow run --help'"))
    }

    @Test("--trace=bogus is rejected the same way")
    func badTraceWithEquals() async {
        let run = await matterflow("run", Repository.workflow("cancel"), "--trace=bogus")
        #expect(run.code == 64)
        #expect(run.stderrLines.first == "Error: --trace must be text, jsonl or none, not 'bogus'")
    }

    @Test("'--opt value' and '--opt=value' are both accepted and mean the same")
    func optionSpellings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let spaced = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home, "--trace", "none",
             "--input", "onboardingPayload=\(Payloads.specQR)", "--input", "deviceName=Lamp", "--input", "roomName=Kitchen"])
        let joined = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home=\(home)", "--trace=none",
             "--input=onboardingPayload=\(Payloads.specQR)", "--input=deviceName=Lamp", "--input=roomName=Kitchen"])
        #expect(spaced.code == 0, "\(spaced.stderr)")
        #expect(joined.code == 0, "\(joined.stderr)")
        #expect(spaced.stderr == "")
        #expect(joined.stderr == "")
        let spacedOutput = try #require(try spaced.result()["output"] as? [String: Any])
        let joinedOutput = try #require(try joined.result()["output"] as? [String: Any])
        // The same seed gives the same device ID, so the two spellings produced the same run.
        #expect(spacedOutput["deviceIDs"] as? [String] == joinedOutput["deviceIDs"] as? [String])
        #expect(joinedOutput["name"] as? String == "Lamp")
        #expect(joinedOutput["room"] as? String == "Kitchen")
    }

    @Test("'--' ends the options")
    func doubleDash() async throws {
        let run = await matterflow("validate", "--", "--not-an-option.json")
        #expect(run.code == 2)
        #expect(run.stderr.contains("--not-an-option.json"))
    }
}
