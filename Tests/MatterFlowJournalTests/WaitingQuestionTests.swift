import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Testing

/// The questions a run waits for, read from its records (`matterflow answer RUN`).
@Suite struct WaitingQuestionTests {
    static func record(_ sequence: Int, _ type: String, workflow: String = "w", state: String? = nil, _ details: JSONObject = [:]) -> JournalRecord {
        var payload: JSONObject = ["seq": .int(sequence), "type": .string(type), "wallTime": .double(Double(sequence)), "workflow": .string(workflow), "clockTime": 0]
        if let state { payload["state"] = .string(state) }
        for member in details.members { payload[member.key] = member.value }
        return JournalRecord(payload: payload, offset: 0)
    }

    static func asked(_ sequence: Int, workflow: String = "w", state: String, name: String) -> JournalRecord {
        record(sequence, "questionAsked", workflow: workflow, state: state, [
            "question": ["name": .string(name), "prompt": "Which?", "secret": false, "timeoutSeconds": 60,
                         "answer": ["choice": [["label": "Kitchen", "value": "k"], ["label": "Hall", "value": "h"]]]],
        ])
    }

    @Test func aQuestionWaitsUntilAnsweredOrLeftAndRejectedAnswersDoNotEndIt() {
        var records = [Self.record(1, "stateEntered", state: "room", ["stateType": "ask"]), Self.asked(2, state: "room", name: "room")]
        records.append(Self.record(3, "answerRejected", state: "room", ["question": "room", "reason": "no"]))
        let waiting = WaitingQuestion.waiting(in: records)
        #expect(waiting.map(\.question.name) == ["room"])
        #expect(waiting.first?.askedAt == 2)
        // Its choices as the run resolved them check an answer by value, label or number.
        #expect((try? waiting.first?.question.accept("2")) == "h")
        #expect(waiting.first?.jsonValue["workflow"] == "w")

        #expect(WaitingQuestion.waiting(in: records + [Self.record(4, "answered", state: "room", ["question": "room", "value": "k"])]).isEmpty)
        // The timeout's way out of the state ends the wait too; a question asked in a sub-workflow meanwhile waits on.
        let timedOut = records + [
            Self.asked(4, workflow: "w/rooms", state: "pick", name: "pick"),
            Self.record(5, "transitionTaken", ["from": "room", "to": "late", "edge": "onTimeout"]),
        ]
        #expect(WaitingQuestion.waiting(in: timedOut).map(\.workflow) == ["w/rooms"])
        // The same state asking again replaces its earlier question; an unreadable record is passed over.
        let again = records + [Self.asked(4, state: "room", name: "room"), JournalRecord(payload: ["type": "questionAsked"], offset: 0)]
        #expect(WaitingQuestion.waiting(in: again).map(\.askedAt) == [4])
    }
}
