import MatterFlowJSON

extension WorkflowDecoder {
    /// Reads a `delay` state: `seconds`, or `until` with its required `maxSeconds` bound; `next` and `onError`.
    func decodeDelay(_ reader: ObjectReader) -> DelayState? {
        let onError = (reader.array("onError") ?? []).enumerated().compactMap { index, value in
            decodeRoute(value, JSONPointer.appending(index, to: reader.pointer("onError")))
        }
        let next = reader.string("next", required: true)
        let length: DelayState.Length?
        switch (reader.has("seconds"), reader.has("until")) {
        case (true, false):
            // A number out of range is reported; the state is kept with the longest delay.
            length = .seconds(reader.number("seconds", in: NumberLimits.elapsed) ?? NumberLimits.longestSeconds)
            if reader.has("maxSeconds") {
                reader.allow("maxSeconds")
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("maxSeconds"),
                    "\"maxSeconds\" bounds a delay \"until\" a moment; a delay of fixed \"seconds\" is its own bound")
            }
        case (false, true):
            let moment = reader.value("until").map { template($0, reader.pointer("until")) }
            // A literal moment is checked here, as the run would check it.
            if let literal = moment?.literalValue, case .failure(let reason) = Timestamp.epochSeconds(of: literal) {
                collector.error(DiagnosticCode.invalidValue, at: reader.pointer("until"), "\"until\" is not a moment: \(reason.message)")
            }
            let bound = reader.number("maxSeconds", in: NumberLimits.elapsed, required: true)
                ?? (reader.has("maxSeconds") ? NumberLimits.longestSeconds : nil)
            length = moment.flatMap { moment in bound.map { .until(moment, maxSeconds: $0) } }
        case (true, true), (false, false):
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer,
                "a delay state has either \"seconds\" or \"until\" (a moment, with \"maxSeconds\"), exactly one of them")
            reader.allow("seconds", "until", "maxSeconds")
            length = nil
        }
        guard let length, let next else { return nil }
        return DelayState(length: length, next: next, onError: onError)
    }
}
