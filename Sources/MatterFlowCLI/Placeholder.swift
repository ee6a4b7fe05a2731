enum PlaceholderMatterFlowCLI {}
