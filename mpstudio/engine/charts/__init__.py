"""What mpstudio charts, with no Qt: the table of charts and their series (``chart_specs``),
how events become their points (``series_points``) and how a value reads (``value_text``).
The window's live charts, their hover readout and the HTML report all read this table."""
