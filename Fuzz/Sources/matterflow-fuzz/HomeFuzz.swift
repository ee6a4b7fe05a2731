import MatterFlowJSON
import MatterFlowSimulator

/// Home files, decoded, then restored into a simulated hub (which replays a saved session).
enum HomeFuzz {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let home = try? HomeDescription.parse(text, file: "fuzz-home.json") else { return }
        _ = try? SimulatedHub(home: home)
        _ = JSONWriter.compact(home.jsonValue)
    }
}
