"""Model backends behind one protocol (base.Model)."""
