import MatterFlowJSON
import MatterFlowJournal

/// A run that waits for answers, with the questions it waits for (`matterflow runs --store URL --waiting`).
public struct WaitingRun: Sendable {
    public var run: StoredRun
    /// The questions, in the order asked (``WaitingQuestion/waiting(in:)``).
    public var questions: [WaitingQuestion]

    /// The run's ID, workflow and structure with its questions, as JSON.
    public var jsonValue: JSONValue {
        [
            "runID": .string(run.runID), "workflow": run.workflow.map(JSONValue.string) ?? .null,
            "structureID": run.structureID.map(JSONValue.string) ?? .null, "questions": .array(questions.map(\.jsonValue)),
        ]
    }
}

extension RunStore {
    /// The runs that wait for answers now, as their records show, oldest first: what a person answering a fleet's
    /// runs looks for. A queued run waits too when its records end at a question (a worker handed it back while it
    /// waited). Reads the records of every running and queued run.
    public func waitingRuns() throws(StoreError) -> [WaitingRun] {
        var waiting: [WaitingRun] = []
        for run in try runs() where run.status == "running" || run.status == "queued" {
            let questions = WaitingQuestion.waiting(in: try records(of: run.runID))
            if !questions.isEmpty { waiting.append(WaitingRun(run: run, questions: questions)) }
        }
        return waiting
    }
}
