"""Small widgets and label helpers every panel uses."""
