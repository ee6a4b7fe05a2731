/// Workflows generated for benchmarks: long chains of trivial states.
enum GeneratedWorkflows {
    /// A chain of `count` assign states, each setting one literal, ending in a succeed state.
    static func chain(states count: Int) -> String {
        var text = #"{"workflow": "chain", "version": 1, "start": "s0", "states": {"#
        text.reserveCapacity(count * 64)
        for index in 0..<count {
            text += #""s\#(index)": {"type": "assign", "set": {"x": \#(index)}, "next": "s\#(index + 1)"},"#
        }
        text += #""s\#(count)": {"type": "succeed", "output": "${vars.x}"}}}"#
        return text
    }

    /// A chain of `count` action states, each reading the hub's status, ending in a succeed state.
    static func actions(states count: Int) -> String {
        var text = #"{"workflow": "actions", "version": 1, "start": "s0", "states": {"#
        for index in 0..<count {
            text += #""s\#(index)": {"type": "action", "operation": "readHubStatus", "next": "s\#(index + 1)"},"#
        }
        text += #""s\#(count)": {"type": "succeed"}}}"#
        return text
    }
}
