"""The batch-size finder: the largest batch each precision trains at without running out
of memory, each try in a process of its own (issue 25, "spend the memory it saves")."""
