import Foundation

/// Trees of workflow files that nest sub-workflows level by level, written to a directory: the shapes whose
/// analysis must grow with the size of the files, not with the number of paths through them.
///
/// Level `k` is `level-k.json`; `level-0.json` is the top and the last level is a leaf that reads the hub's
/// status. Every file is valid, so loading the top one analyses the whole tree.
public enum WorkflowTrees {
    /// How each level runs the next.
    public enum Shape: String, Sendable, CaseIterable {
        /// Each level runs the next once: `levels` files nested `levels - 1` deep.
        case chain
        /// Each level runs the next twice, the second time when the first fails: the same files as a chain, but
        /// 2^(levels - 1) ways down to the leaf.
        case diamond
    }

    /// Writes a tree of `levels` files (at least 1) into `directory` and returns the path of its top file.
    @discardableResult
    public static func write(_ shape: Shape, levels: Int, into directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for level in 0..<max(levels, 1) {
            let text = level == max(levels, 1) - 1 ? leaf(level) : self.level(level, shape: shape)
            try text.write(toFile: directory + "/" + fileName(level), atomically: true, encoding: .utf8)
        }
        return directory + "/" + fileName(0)
    }

    /// The file name of a level.
    public static func fileName(_ level: Int) -> String {
        "level-\(level).json"
    }

    /// A level that runs the next one (twice in a diamond), succeeding when a run of it succeeds.
    static func level(_ level: Int, shape: Shape) -> String {
        let child = fileName(level + 1)
        let second: String
        switch shape {
        case .chain:
            second = ""
        case .diamond:
            second = #"""
                "second": {"type": "workflow", "path": "\#(child)", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
                """#
        }
        let firstFailure = shape == .diamond ? "second" : "failed"
        return #"""
            {"workflow": "level-\#(level)", "version": 1, "start": "first", "states": {
              "first": {"type": "workflow", "path": "\#(child)", "next": "done", "onError": [{"errors": ["*"], "next": "\#(firstFailure)"}]},
              \#(second)
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
    }

    /// The last level: one hub call.
    static func leaf(_ level: Int) -> String {
        #"""
        {"workflow": "level-\#(level)", "version": 1, "start": "read", "states": {
          "read": {"type": "action", "operation": "readHubStatus", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#
    }
}
