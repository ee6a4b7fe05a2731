import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A secret answer given again on resume is read as the run read it (a choice by number or label, whitespace
/// trimmed) and found where it was asked (a sub-workflow, a question named apart from its state and variable); it
/// answers only the question it was given for.
@Suite("resumed secret answers, read as the run read them")
struct ResumeSecretAnswerReadingTests {
    typealias Crashed = ResumeSecretAnswerTests.Crashed

    /// Prepares, asks which secret door code to use (a choice: Front 1111, Back 2222), fetches the rooms, releases
    /// the session; the output says whether the code the run holds at the end is Back's.
    static let choiceWorkflow = """
        {"workflow": "secret-choice", "version": 1, "start": "prepare", "onCancel": "release",
         "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "result": "session", "next": "door",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "door": {"type": "ask", "question": "doorCode", "prompt": "Which door?", "secret": true, "result": "code",
                   "answer": {"choice": {"from": [{"name": "Front", "code": "1111"}, {"name": "Back", "code": "2222"}],
                                         "label": "name", "value": "code"}},
                   "timeoutSeconds": 60, "next": "rooms", "onTimeout": "release"},
          "rooms": {"type": "action", "operation": "fetchRooms", "result": "rooms", "next": "finish",
                    "onError": [{"errors": ["*"], "next": "release"}]},
          "finish": {"type": "action", "operation": "cancelCommissioning", "next": "check",
                     "onError": [{"errors": ["*"], "next": "failed"}]},
          "check": {"type": "choice", "choices": [{"if": {"equals": ["${vars.code}", "2222"]}, "next": "back"}],
                    "default": "other"},
          "back": {"type": "succeed", "output": {"back": true}},
          "other": {"type": "succeed", "output": {"back": false}},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "released"},
          "failed": {"type": "fail", "error": "${error}"}
         }}
        """

    @Test(
        "a secret choice answered by number or label, resumed with the same text or a spaced variant, is accepted",
        arguments: [("2", "2"), ("Back", "Back"), (" 2 ", "2"), ("Back", " Back\t"), ("2", "Back"), ("2222", "2")])
    func choiceAnsweredAsText(answered: String, resumedWith: String) async throws {
        let crashed = try await Crashed(
            workflow: Self.choiceWorkflow, answers: ["doorCode": .string(answered)], output: ["back": true])
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: ["doorCode": .string(resumedWith)])
        #expect(run.resumed && run.status == .succeeded, "\(run.notes)")
        #expect(try crashed.finished()?.output == ["back": true], "the resumed run holds Back's code")
    }

    @Test("a secret choice asked again, whose journaled choices are redacted, resumes with the value given as it is")
    func choiceAskedAgainWithRedactedChoices() async throws {
        // The second ask's record hides Back's code, a known secret once the first ask took it.
        let askedTwice = Self.choiceWorkflow
            .replacingOccurrences(of: #""timeoutSeconds": 60, "next": "rooms""#, with: #""timeoutSeconds": 60, "next": "doorAgain""#)
            .replacingOccurrences(
                of: #""rooms": {"type": "action""#,
                with: #""doorAgain": {"type": "ask", "question": "doorCode", "prompt": "Which door again?", "secret": true, "result": "code", "answer": {"choice": {"from": [{"name": "Front", "code": "1111"}, {"name": "Back", "code": "2222"}], "label": "name", "value": "code"}}, "timeoutSeconds": 60, "next": "rooms", "onTimeout": "release"}, "rooms": {"type": "action""#)
        let crashed = try await Crashed(workflow: askedTwice, answers: ["door": "2", "doorAgain": "2"], output: ["back": true])
        defer { crashed.scratch.remove() }
        #expect(try crashed.journalText().contains(#"{"label":"Back","value":"\#(RunOptions.redacted)"}"#))
        let run = try await crashed.recover(answers: ["doorCode": "2222"])
        #expect(run.resumed && run.status == .succeeded, "\(run.notes)")
        #expect(try crashed.finished()?.output == ["back": true], "the resumed run holds Back's code")
    }

    @Test("another choice, by number or label, is refused before recovery changes anything", arguments: ["1", "Front", "3"])
    func otherChoiceRefused(resumedWith: String) async throws {
        let crashed = try await Crashed(workflow: Self.choiceWorkflow, answers: ["doorCode": "2"], output: ["back": true])
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: ["door": .string(resumedWith)])
        #expect(run.action == .deferred && !run.resumed, "\(run.notes)")
        let reason = run.notes.joined(separator: "; ")
        #expect(reason.contains("resume refused") && reason.contains("--answer doorCode"), "\(reason)")
        #expect(try crashed.sessionActive(), "the hub was left alone")
    }

    /// Prepares, runs `code-entry.json` (state `verify`), releases the session; the output is the child's.
    static let parentWorkflow = """
        {"workflow": "secret-parent", "version": 1, "start": "prepare", "onCancel": "release",
         "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "result": "session", "next": "verify",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "verify": {"type": "workflow", "path": "code-entry.json", "result": "entry", "next": "finish",
                     "onError": [{"errors": ["*"], "next": "release"}]},
          "finish": {"type": "action", "operation": "cancelCommissioning", "next": "done",
                     "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": {"samePin": "${vars.entry.samePin}"}},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "released"},
          "failed": {"type": "fail", "error": "${error}"}
         }}
        """

    /// Asks question `pin` in state `askCode` into variable `code`, fetches the rooms, and, with `askingAgain`,
    /// asks `pin` once more (state `askAgain`) before telling whether the code is the PIN.
    static func childWorkflow(askingAgain: Bool) -> String {
        let ask = #""type": "ask", "question": "pin", "prompt": "Code?", "answer": {"text": {"pattern": "[0-9]{6}"}}, "secret": true, "result": "code", "timeoutSeconds": 60, "onTimeout": "noAnswer""#
        return """
            {"workflow": "code-entry", "version": 1, "start": "askCode",
             "states": {
              "askCode": {\(ask), "next": "rooms"},
              "rooms": {"type": "action", "operation": "fetchRooms", "result": "rooms", "next": "\(askingAgain ? "askAgain" : "check")"},
              \(askingAgain ? #""askAgain": {\#(ask), "next": "check"},"# : "")
              "check": {"type": "choice", "choices": [{"if": {"equals": ["${vars.code}", "\(ResumeSecretAnswerTests.pin)"]}, "next": "same"}],
                        "default": "other"},
              "same": {"type": "succeed", "output": {"samePin": true}},
              "other": {"type": "succeed", "output": {"samePin": false}},
              "noAnswer": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "no answer"}
             }}
            """
    }

    @Test("a secret answer asked in a sub-workflow is given back by question or state name to the variable it bound",
          arguments: ["pin", "askCode"])
    func answerInSubworkflow(name: String) async throws {
        let crashed = try await Crashed(
            workflow: Self.parentWorkflow, files: ["code-entry.json": Self.childWorkflow(askingAgain: false)])
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: [name: .string(ResumeSecretAnswerTests.pin)])
        #expect(run.resumed && run.status == .succeeded, "\(run.notes)")
        #expect(try crashed.finished()?.output == ["samePin": true], "the child's variable holds the PIN again")
        #expect(!(try crashed.journalText()).contains(ResumeSecretAnswerTests.pin))
    }

    @Test("without it, the note names the sub-workflow's variable and the question to answer")
    func subworkflowAnswerMissing() async throws {
        let crashed = try await Crashed(
            workflow: Self.parentWorkflow, files: ["code-entry.json": Self.childWorkflow(askingAgain: false)])
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: [:])
        #expect(!run.resumed && run.status == .cancelled, "\(run.notes)")
        let notes = run.notes.joined(separator: "; ")
        #expect(notes.contains("code-entry: vars.code") && notes.contains("--answer pin="), "\(notes)")
        #expect(try !crashed.sessionActive(), "the cancel path released the session")
    }

    @Test("the answer given back is used up: the same question asked later is not answered with it")
    func laterAskNotAnswered() async throws {
        // The first run is answered both times (the second by its state's name); its journal is cut before the second.
        let crashed = try await Crashed(
            workflow: Self.parentWorkflow, files: ["code-entry.json": Self.childWorkflow(askingAgain: true)],
            answers: ["pin": .string(ResumeSecretAnswerTests.pin), "askAgain": .string(ResumeSecretAnswerTests.pin)])
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: ["pin": .string(ResumeSecretAnswerTests.pin)])
        #expect(run.status == .cancelled, "recovery has nobody to answer the second ask: \(run.notes)")
        #expect(try crashed.finished()?.output == nil)
        #expect(try !crashed.sessionActive(), "the cancel path released the session")
    }
}
