import MatterFlow
import MatterFlowJSON

extension RunRecoverer {
    /// Refuses to resume with an answer to a secret question the run had answered that is not the answer it was
    /// given (compared by the salted digest its `answered` record keeps), before recovery writes or calls anything.
    func checkResumedAnswers() throws(RecoveryDeferral) {
        guard options.resume, let started, let answers = SecretAnswers(entries: entries, started: started) else { return }
        var mismatched: [String] = []
        for given in answers.given {
            if case .mismatched? = answers.check(given, in: options.answers) { mismatched.append(given.question) }
        }
        guard mismatched.isEmpty else {
            let names = mismatched.map { "--answer \($0)" }.joined(separator: ", ")
            throw RecoveryDeferral(
                message: "resume refused: \(names) does not match the secret answer run \(runID) was given (the journal "
                    + "keeps a salted digest of each secret answer, never the answer); nothing was changed. Pass the "
                    + "answer the run was given, or recover without --resume to take the run's cancel path")
        }
    }
}
