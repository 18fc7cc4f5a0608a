"""The main window and what hangs off it directly: menus and their actions, the log, the banner
and status line (Notices), settings, About."""
