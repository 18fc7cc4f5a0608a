"""``python -m mpstudio.engine.service``: the window's engine process."""

from mpstudio.engine.service.engine_process import serve_stdio

if __name__ == "__main__":
    serve_stdio()
