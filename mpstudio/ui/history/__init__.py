"""The run history panel, its table model, plotting and comparing past runs, the comparison card."""
