import MatterFlow
import MatterFlowJSON

extension RunRecoverer {
    /// Refuses to resume with a secret input that is not the one the run started with, or an answer to a secret
    /// question the run had answered that is not the answer it was given (each compared by the salted digest its
    /// `runStarted` or `answered` record keeps), before recovery writes or calls anything; a run whose keyed digests
    /// cannot be checked without their key (``RecoveryOptions/digestKey``) is refused as a whole. A value that is not of the
    /// input's type is left to the resume plan, which says so. With ``RecoveryOptions/keepsRunsItCannotResume``, a
    /// secret input the run started with and that is not given again is refused the same way.
    ///
    /// - Returns: the run's secret answers, each with the value given again that matched its digest, for the
    ///   resume plan to put back (recovering without `--resume` compares nothing and refuses nothing).
    func checkResumedSecrets() throws(RecoveryDeferral) -> [SecretAnswers.Resumed] {
        guard let started, let digests = secretDigests else { return [] }
        let answers = SecretAnswers(entries: entries, digests: digests)
        guard options.resume else { return answers?.resumed(with: [:]).resumed ?? [] }
        // Refused even with no secret to check yet: a secret answer the resumed run took would be journaled with
        // no digest, and the run could then never be resumed with it after another stop.
        if let unavailability = digests.unavailability {
            let reason = digests.key == nil ? options.digestKeyProblem ?? unavailability : unavailability
            throw RecoveryDeferral(
                message: "resume refused: run \(runID)'s secrets cannot be checked: \(reason); nothing was changed. "
                    + "Recover where the key is, or without --resume to take the run's cancel path")
        }
        let workflow = try? options.engine.load(path: started.file)
        var inputs: [String] = []
        var invalid: [String] = []
        for name in options.inputs.keys.sorted() {
            guard var value = options.inputs[name] else { continue }
            if let text = value.stringValue, let declaration = workflow?.input(named: name) {
                guard case .success(let typed) = declaration.value(fromText: text) else { continue }
                value = typed
                // A secret value no run could take is a typo to fix, not another run's value (a value the journal
                // keeps is not taken from --input at all).
                if digests.inputs[name] != nil, let problem = declaration.problem(with: value) {
                    invalid.append("--input \(name) \(problem)")
                    continue
                }
            }
            if digests.matches(name, value) == false { inputs.append(name) }
        }
        let (resumed, mismatched) = answers?.resumed(with: options.answers) ?? ([], [])
        let forgotten = options.keepsRunsItCannotResume ? digests.inputs.keys.filter { options.inputs[$0] == nil }.sorted() : []
        guard inputs.isEmpty, invalid.isEmpty, mismatched.isEmpty, forgotten.isEmpty else {
            var refused: [String] = invalid
            if !forgotten.isEmpty {
                refused.append(
                    "run \(runID) started with the secret input\(forgotten.count == 1 ? "" : "s") \(forgotten.joined(separator: ", ")), "
                        + "not given again (\(forgotten.map { "--input \($0)=..." }.joined(separator: " ")))")
            }
            if !inputs.isEmpty {
                refused.append("\(inputs.map { "--input \($0)" }.joined(separator: ", ")) does not match what run \(runID) started with")
            }
            if !mismatched.isEmpty {
                refused.append(
                    "\(mismatched.map { "--answer \($0)" }.joined(separator: ", ")) does not match the secret answer run \(runID) was given")
            }
            throw RecoveryDeferral(
                message: "resume refused: \(refused.joined(separator: "; ")) (the journal keeps a salted digest of each secret "
                    + "input and answer, never the value); nothing was changed. Pass the run's own values, or recover without "
                    + "--resume to take the run's cancel path")
        }
        return resumed
    }
}
