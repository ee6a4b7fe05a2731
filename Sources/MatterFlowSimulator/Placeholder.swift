enum PlaceholderMatterFlowSimulator {}
