"""The setup panel: dataset, template, precision, loss scaling, training aids, strategy, the
layer table."""
