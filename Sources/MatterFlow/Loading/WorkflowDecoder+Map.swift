import MatterFlowJSON

extension WorkflowDecoder {
    /// Reads a `map` state: a sub-workflow state whose body runs once per element of `items`.
    func decodeMap(_ reader: ObjectReader) -> SubworkflowState? {
        let path = reader.string("path", required: true)
        let inputs = templates(reader.object("inputs"))
        let items = reader.value("items", required: true).map { template($0, reader.pointer("items")) }
        let elementName = reader.string("as", required: true)
        if let elementName { checkReadable(elementName, at: reader.pointer("as"), what: "element variable") }
        let maxItems = reader.int("maxItems", in: MapIteration.itemLimit, required: true)
        let concurrency = reader.int("concurrency", in: MapIteration.itemLimit) ?? 1
        let tolerateFailures = reader.int("tolerateFailures", in: MapIteration.failureLimit) ?? 0
        // Items written out (not a reference) are known now: no list, or too many, would fail every run.
        func written(count: Int) {
            guard let maxItems, count > maxItems else { return }
            collector.error(
                DiagnosticCode.numberOutOfRange, at: reader.pointer("items"),
                "\"items\" lists \(count) items, more than \"maxItems\" (\(maxItems)); raise \"maxItems\" or list fewer")
        }
        func notAList() {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("items"),
                "\"items\" must be a list, or a reference to one such as \"${vars.completion.deviceIDs}\"")
        }
        switch items {
        case .literal(let value)?:
            if let list = value.arrayValue { written(count: list.count) } else { notAList() }
        case .array(let elements)?: written(count: elements.count)
        case .object?, .interpolation?: notAList()
        case .reference?, nil: break
        }
        if let maxItems {
            if concurrency > maxItems {
                collector.error(
                    DiagnosticCode.numberOutOfRange, at: reader.pointer("concurrency"),
                    "\"concurrency\" must be between 1 and \"maxItems\" (\(maxItems))")
            }
            if tolerateFailures > maxItems {
                collector.error(
                    DiagnosticCode.numberOutOfRange, at: reader.pointer("tolerateFailures"),
                    "\"tolerateFailures\" must be between 0 and \"maxItems\" (\(maxItems))")
            }
        }
        let step = decodeStep(reader, guardsAndRetry: false)
        guard let path, let items, let elementName, let maxItems, let step else { return nil }
        var state = SubworkflowState(path: path, inputs: inputs, step: step)
        state.map = MapIteration(
            items: items, elementName: elementName, maxItems: maxItems, concurrency: concurrency, tolerateFailures: tolerateFailures)
        return state
    }
}

extension WorkflowDecoder {
    /// Reads a `repeat` state: a sub-workflow state whose body runs until `until` holds, at most `maxIterations`
    /// times, `delaySeconds` apart. Its `result` is required: `until` reads the body's output through it.
    func decodeRepeat(_ reader: ObjectReader) -> SubworkflowState? {
        let path = reader.string("path", required: true)
        let inputs = templates(reader.object("inputs"))
        let until = reader.value("until", required: true).flatMap { decodeCondition($0, reader.pointer("until")) }
        let maxIterations = reader.int("maxIterations", in: RepeatIteration.iterationLimit, required: true)
        let delay = reader.number("delaySeconds", in: NumberLimits.elapsed) ?? 0
        if !reader.has("result") {
            collector.error(
                DiagnosticCode.missingKey, at: reader.pointer,
                "a repeat state needs \"result\": its \"until\" condition reads the body's output through that variable")
        }
        let step = decodeStep(reader, guardsAndRetry: false)
        guard let path, let until, let maxIterations, let step, step.result != nil else { return nil }
        var state = SubworkflowState(path: path, inputs: inputs, step: step)
        state.repeating = RepeatIteration(until: until, maxIterations: maxIterations, delaySeconds: delay)
        return state
    }
}
