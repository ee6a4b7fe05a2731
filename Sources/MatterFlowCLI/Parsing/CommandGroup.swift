/// The two-word subcommands that share a first word which is not a subcommand of its own, such as `hub serve` and
/// `hub check`: `matterflow hub` and `matterflow help hub` list them.
struct CommandGroup: Sendable {
    /// The shared first word, e.g. `hub`.
    var name: String
    /// The subcommands of the group, in the order the overview lists them.
    var commands: [CommandSpec]

    /// The group whose first word is `name`; nil when `name` is a subcommand itself (`payload`) or starts none.
    static func named(_ name: String, among commands: [CommandSpec]) -> CommandGroup? {
        guard !commands.contains(where: { $0.name == name }) else { return nil }
        let members = commands.filter { $0.name.hasPrefix(name + " ") }
        return members.isEmpty ? nil : CommandGroup(name: name, commands: members)
    }

    var usage: String { "matterflow \(name) <subcommand> [options]" }

    /// The group's usage and its subcommands with their abstracts.
    var help: String {
        var text = "OVERVIEW: The '\(name)' subcommands.\n\nUSAGE: \(usage)\n\nSUBCOMMANDS:\n"
        for command in commands { text += CommandSpec.row(command.name, command.abstract) }
        text += "\n  See 'matterflow help \(name) <subcommand>' for detailed help.\n"
        return text
    }
}
