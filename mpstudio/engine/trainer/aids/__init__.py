"""The training aids of a run attempt, one module each, all following
training_aid.TrainingAid; registry.AIDS lists them in the order they attach."""
