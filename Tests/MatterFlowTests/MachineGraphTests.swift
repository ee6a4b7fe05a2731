import MatterFlow
import Testing

/// The state machines in code, drawn from their transition tables.
@Suite struct MachineGraphTests {
    /// What an event does to a session restored from a snapshot, calling the methods directly: an independent path
    /// to the table's rows (which are produced through ``CommissioningSession/Event``).
    static func outcome(of event: CommissioningSession.Event, in phase: CommissioningSession.Phase) throws -> String {
        var snapshot = CommissioningSessionSnapshot(phase: phase, sessionID: "s", topology: Topology(ecosystemName: "E", homes: ["H"]))
        snapshot.deviceIDs = ["d"]
        snapshot.deviceName = "n"
        var session = try CommissioningSession(restoring: snapshot)
        do throws(FlowError) {
            var note: String?
            switch event {
            case .prepare: try session.prepare(sessionID: "t")
            case .request:
                try session.request(AddDeviceRequest(requestID: "request-1", topology: Topology(ecosystemName: "E", homes: ["H"])))
                if phase == .requested { note = "same topology: the request made" }
            case .beginCommissioning: try session.beginCommissioning(commissioningID: "c")
            case .finishCommissioning: try session.finishCommissioning(deviceIDs: ["e"])
            case .failCommissioning: try session.failCommissioning()
            case .configure: try session.configure(name: "x", roomName: nil)
            case .complete: _ = try session.complete()
            case .cancel: note = session.cancel() == nil ? "nothing to release" : nil
            case .expire: note = session.expire() == nil ? "nothing to expire" : nil
            }
            return StateMachineDescription.Outcome.moves(to: session.phase.rawValue, output: note).description
        } catch {
            return StateMachineDescription.Outcome.refused(error.cause).description
        }
    }

    @Test func everyEventInEveryPhaseMatchesTheTable() throws {
        let table = CommissioningSession.transitionTable
        #expect(table.transitions.count == CommissioningSession.Phase.allCases.count * CommissioningSession.Event.allCases.count)
        for phase in CommissioningSession.Phase.allCases {
            for event in CommissioningSession.Event.allCases {
                let row = try #require(table.transitions(from: phase.rawValue, on: event.rawValue).first)
                #expect(row.outcome.description == (try Self.outcome(of: event, in: phase)), "\(phase) \(event)")
            }
        }
    }

    @Test func theSessionMachinesPicture() {
        let machine = try! #require(MachineGraph.machine(named: "commissioning-session"))
        let mermaid = MachineGraph.build(machine.table, activeStates: machine.activeStates).mermaid
        #expect(mermaid.hasPrefix("%% commissioning session\nflowchart TD\n  s0((\"start\"))\n  s0 --> s1\n  s1(\"idle\")\n"))
        #expect(mermaid.contains("  s1 -->|\"prepare\"| s2\n"))
        #expect(mermaid.contains("  s4 -->|\"failCommissioning\"| s3\n"))
        #expect(mermaid.contains("  s1 -->|\"cancel / nothing to release<br/>expire / nothing to expire\"| s1\n"))
        #expect(mermaid.hasSuffix("  classDef activeState fill:#e3ecff\n  class s2,s3,s4,s5,s6 activeState\n"))
        // Refused events are in the table, not in the picture.
        #expect(!mermaid.contains("refused"))
    }

    @Test func everyMachineWithATableCanBeDrawn() {
        #expect(MachineGraph.machines.map(\.name) == ["commissioning-session", "epskc", "thread-membership", "run"])
        for machine in MachineGraph.machines {
            let graph = MachineGraph.build(machine.table, activeStates: machine.activeStates)
            #expect(graph.nodes.map(\.id) == machine.table.states)
            #expect(graph.edges.count <= machine.table.moves.count)
            #expect(!graph.edges.isEmpty)
        }
    }
}
