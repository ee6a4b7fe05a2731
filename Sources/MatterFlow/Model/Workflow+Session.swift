extension Workflow {
    /// Whether the workflow, or a sub-workflow at any depth, calls an operation that opens, uses or releases the
    /// structure's commissioning session, by `catalog`'s descriptors. An operation the catalog lacks counts as one:
    /// nothing says it leaves the session alone.
    ///
    /// A fleet runs such workflows one at a time per structure: a second one started while the first holds the
    /// session could only fail with `sessionBusy`.
    public func worksInSession(catalog: OperationCatalog = .standard) -> Bool {
        VerificationContext(catalog: catalog).firstState(in: self, where: .mayWorkInSession) != nil
    }
}
