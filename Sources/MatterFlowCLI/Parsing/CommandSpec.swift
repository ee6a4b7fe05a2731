import MatterFlowJSON

/// What a subcommand accepts, used both to parse its arguments and to print its help.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        /// Long name without dashes, e.g. `home`.
        var name: String
        /// Placeholder for the value; nil for a flag.
        var valueName: String?
        var repeatable = false
        /// The command cannot go without it: the usage shows it outside brackets.
        var required = false
        /// The option that may stand in for this one: the command needs one of the two, and the usage shows them
        /// together where this one is, as `(--journal <dir> | --store <url>)`.
        var alternative: String?
        var help: String
    }

    var name: String
    var abstract: String
    /// Placeholders of the positional arguments, e.g. `<workflow>`.
    var arguments: [(name: String, help: String, repeatable: Bool)]
    var options: [Option]
    var discussion: String?

    /// The placeholders of options whose value is a path.
    static let pathPlaceholders: Set<String> = ["<dir>", "<file>"]

    func option(named name: String) -> Option? {
        options.first { $0.name == name }
    }

    var usage: String {
        var parts = ["matterflow", name]
        for argument in arguments { parts.append(argument.repeatable ? "\(argument.name) ..." : argument.name) }
        let alternatives = Set(options.compactMap(\.alternative))
        for option in options where !alternatives.contains(option.name) {
            if let partner = option.alternative.flatMap(self.option(named:)) {
                parts.append("(\(Self.synopsis(option)) | \(Self.synopsis(partner)))")
                continue
            }
            let text = Self.synopsis(option)
            parts.append((option.required ? text : "[\(text)]") + (option.repeatable ? " ..." : ""))
        }
        return parts.joined(separator: " ")
    }

    /// `--name <value>`, or `--name` for a flag.
    private static func synopsis(_ option: Option) -> String {
        option.valueName.map { "--\(option.name) \($0)" } ?? "--\(option.name)"
    }

    var help: String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += Self.row(argument.name, argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            text += Self.row(Self.synopsis(option), option.help)
        }
        text += Self.row("-h, --help", "Show help information.")
        if let discussion { text += "\n" + discussion + "\n" }
        return text
    }

    static func row(_ name: String, _ help: String) -> String {
        let padded = name.count < 26 ? name + String(repeating: " ", count: 26 - name.count) : name + "\n" + String(repeating: " ", count: 28)
        return "  " + padded + help + "\n"
    }
}

/// A usage mistake: printed on standard error with the command's usage, exit 64.
struct UsageError: Error, Sendable {
    var message: String
    /// The subcommand whose usage to show, if known.
    var command: String?
}

/// The arguments of one subcommand after parsing.
struct ParsedArguments: Sendable {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The text given with `--name`, nil when the option is absent; a usage error of `command` when it is empty (an
    /// ID that names nothing).
    func nonEmptyValue(_ name: String, command: String) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard !text.isEmpty else { throw UsageError(message: "--\(name) cannot be empty", command: command) }
        return text
    }

    /// The whole number given with `--name`, nil when the option is absent; a usage error of `command` naming the
    /// range when the text is not a whole number within it.
    func wholeNumber(_ name: String, range: ClosedRange<Int>, command: String) throws(UsageError) -> Int? {
        guard let text = self.value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", command: command)
        }
        return number
    }

    /// The whole number given with `--name`, `value` when the option is absent (see ``wholeNumber(_:range:command:)``).
    func wholeNumber(_ name: String, default value: Int, range: ClosedRange<Int>, command: String) throws(UsageError) -> Int {
        try wholeNumber(name, range: range, command: command) ?? value
    }
}

extension CommandSpec {
    /// Parses arguments after the subcommand name. Accepts `--opt value` and `--opt=value`; `--` ends options.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UsageError(message: "Unknown option '\(argument)'", command: name)
            }
            let body = argument.dropFirst(2)
            let parts = body.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let optionName = String(parts[0])
            guard let option = option(named: optionName) else {
                let hint = SpellingSuggestion.closest(to: optionName, among: options.map(\.name)).map { "; did you mean '--\($0)'?" } ?? ""
                throw UsageError(message: "Unknown option '--\(optionName)'\(hint)", command: name)
            }
            if option.valueName == nil {
                guard parts.count == 1 else {
                    throw UsageError(message: "Option '--\(optionName)' takes no value", command: name)
                }
                parsed.flags.insert(optionName)
                continue
            }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "Missing value for '--\(optionName) \(option.valueName ?? "")'", command: name)
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, parsed.values[optionName] != nil {
                throw UsageError(message: "Option '--\(optionName)' given more than once", command: name)
            }
            // An empty path names no file: `--journal ''` would write into `/`, `--state ''` into the current directory.
            if value.isEmpty, let kind = option.valueName, Self.pathPlaceholders.contains(kind) {
                throw UsageError(message: "--\(optionName) cannot be empty; name a \(kind == "<dir>" ? "directory" : "file")", command: name)
            }
            parsed.values[optionName, default: []].append(value)
        }
        if parsed.wantsHelp { return parsed }
        // An argument written in brackets (`[<workflow>]`) is optional.
        let required = self.arguments.filter { !$0.name.hasPrefix("[") }.count
        if parsed.positionals.count < required {
            throw UsageError(message: "Missing expected argument '\(self.arguments[parsed.positionals.count].name)'", command: name)
        }
        if !(self.arguments.last?.repeatable ?? false), parsed.positionals.count > self.arguments.count {
            // Most often a value with spaces the shell split (a manual pairing code as printed): say how to keep it whole.
            let joined = self.arguments.isEmpty ? "" : parsed.positionals[(self.arguments.count - 1)...].joined(separator: " ")
            let hint = joined.isEmpty ? "" : "; if '\(joined)' is one value, quote it"
            throw UsageError(message: "Unexpected argument '\(parsed.positionals[self.arguments.count])'\(hint)", command: name)
        }
        return parsed
    }
}

