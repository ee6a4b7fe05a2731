extension Workflow {
    /// The parts a workflow is made of, as plain values: what the loader decodes, and what code that builds or
    /// changes a workflow edits before making one (``Workflow/init(_:)``, ``Workflow/with(_:)``).
    ///
    /// A definition is only data; a ``Workflow`` made from it is compiled once and never changes.
    public struct Definition: Sendable {
        /// The workflow's name (`workflow`), as results, traces and journals name it.
        public var name: String
        /// The workflow language version the file is written for (`version`).
        public var version: Int
        /// What the workflow does, for people (`description`).
        public var description: String?
        /// Declared inputs, in document order.
        public var inputs: [InputDeclaration]
        /// The state a run begins in.
        public var start: String
        /// Where a cancelled run goes, so it can release what it holds before it ends.
        public var onCancel: String?
        /// States by name.
        public var states: [String: WorkflowState]
        /// State names in document order. A name listed twice counts once; a state not listed comes after the
        /// listed ones, in the order of its name.
        public var stateOrder: [String]
        /// The file the workflow came from, or a label for workflows loaded from data.
        public var file: String
        /// Sub-workflows by the path written in their state, resolved and loaded.
        public var subworkflows: [String: Workflow]
        /// What the workflow promises about itself (error handling, deadline, session on success).
        public var contract: WorkflowContract
        /// What ``contentHash`` is computed from; nil for a workflow built in code.
        var contentHashSource: ContentHashSource?

        /// A definition from its parts; a repeated state name keeps the first state with that name.
        public init(
            name: String, version: Int, description: String?, inputs: [InputDeclaration], start: String,
            onCancel: String?, states: [WorkflowState], file: String, subworkflows: [String: Workflow] = [:],
            contract: WorkflowContract = WorkflowContract()
        ) {
            self.name = name
            self.version = version
            self.description = description
            self.inputs = inputs
            self.start = start
            self.onCancel = onCancel
            var byName = [String: WorkflowState](minimumCapacity: states.count)
            var order: [String] = []
            order.reserveCapacity(states.count)
            // By index: a loop variable would copy each state and then release everything it holds.
            for index in states.indices where byName[states[index].name] == nil {
                byName[states[index].name] = states[index]
                order.append(states[index].name)
            }
            self.states = byName
            stateOrder = order
            self.file = file
            self.subworkflows = subworkflows
            self.contract = contract
        }

        /// SHA-256 (hex) of the workflow's text and its sub-workflows' hashes (see ``Workflow/contentHash``);
        /// empty for a workflow built in code unless set.
        public var contentHash: String {
            get { contentHashSource?.hash ?? "" }
            set { contentHashSource = ContentHashSource(fixed: newValue) }
        }
    }
}
