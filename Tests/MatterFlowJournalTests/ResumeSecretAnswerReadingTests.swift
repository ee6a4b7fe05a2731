import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A secret answer given again on resume is read as the run read it (a choice by number or label, whitespace
/// trimmed) before its digest is compared.
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
}
