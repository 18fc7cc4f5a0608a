"""Calibration run on the lent GPU (Keras 3.15 on JAX/XLA; TensorFlow is not installable
there). Two parts, every result one JSON line in $OUT/results.jsonl as it is measured:

  rates     the device's own rates: matmul throughput per dtype and size (TF32, true
            float32, float16, bfloat16, float8), convolution throughput, memory bandwidth,
            the per-call dispatch cost and Keras fit's fixed cost per step.
  template  one mpstudio template under one precision at several batch sizes, as the
            reference's jax_run.py measures it (fresh process, median of 3 timed fits after
            a compiling warm-up; the peak after the smallest batch is that batch's own).

Measured on an NVIDIA H200 on 2026-11-27: h200_2026-11-27.jsonl beside this file (the
batch-2048 figures of the three main precisions are in the shared reference, not repeated).
To run it again, carry Keras' wheels (keras, namex, optree, tomli_w, platformdirs) to a
machine with a GPU and JAX, and give $OUT a folder. CAL_SMALL=1 tries it on a CPU.

usage: python gpu_calibrate.py rates | template NAME PRECISION STEPS BATCH [BATCH...]
       python gpu_calibrate.py plan SECONDS   (runs everything in priority order)
"""
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the checkout
sys.path.insert(0, ROOT)
OUT = os.environ.get("OUT", "/tmp")
RESULTS = os.path.join(OUT, "results.jsonl")


def emit(record):
    line = json.dumps(record)
    print(line, flush=True)
    with open(RESULTS, "a") as f:
        f.write(line + "\n")


def timed(fn, *args, min_s=0.05, reps=5):
    """Median seconds of one call (async calls, blocked at the end of each batch)."""
    import jax
    out = fn(*args)
    jax.block_until_ready(out)
    t = time.perf_counter()
    jax.block_until_ready(fn(*args))
    one = max(time.perf_counter() - t, 1e-6)
    n = max(1, int(min_s / one))
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(n):
            out = fn(*args)
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t) / n)
    return statistics.median(times), min(times)


def rates():
    import jax
    import jax.numpy as jnp
    from jax import lax

    dev = jax.local_devices()[0]
    emit({"part": "device", "kind": dev.device_kind, "jax": jax.__version__})
    key = jax.random.PRNGKey(0)
    dtypes = {"tf32": (jnp.float32, lax.Precision.DEFAULT),
              "fp32": (jnp.float32, lax.Precision.HIGHEST),
              "f16": (jnp.float16, None), "bf16": (jnp.bfloat16, None),
              "fp8": (jnp.float8_e4m3fn, None)}
    shapes = [(n, n, n) for n in (256, 512, 1024, 2048, 4096, 8192)] + [
        (256, 3072, 1024), (2048, 3072, 1024), (2048, 1024, 3072), (256, 1024, 10),
        (2048, 1024, 10), (131072, 64, 128), (131072, 128, 64), (16384, 64, 64),
        (2048, 8192, 8192), (256, 8192, 8192), (2048, 4096, 512), (256, 4096, 512)]
    if os.environ.get("CAL_SMALL"):  # a dry run on a CPU
        shapes = [(64, 64, 64), (128, 32, 16)]
    for name, (dt, prec) in dtypes.items():
        for m, k, n in shapes:
            try:
                a = jax.random.normal(key, (m, k), jnp.float32).astype(dt)
                b = jax.random.normal(key, (k, n), jnp.float32).astype(dt)
                out_t = jnp.bfloat16 if name == "fp8" else None
                f = jax.jit(lambda x, y, p=prec, o=out_t: lax.dot(
                    x, y, precision=p, preferred_element_type=o))
                med, best = timed(f, a, b)
                emit({"part": "matmul", "dtype": name, "m": m, "k": k, "n": n,
                      "s": med, "tflops": 2 * m * k * n / med / 1e12,
                      "tflops_best": 2 * m * k * n / best / 1e12})
            except Exception as exc:
                emit({"part": "matmul", "dtype": name, "m": m, "k": k, "n": n,
                      "error": repr(exc)[:300]})
    # convolutions, NHWC 3x3 'same' (the cnn's and resnet's shapes)
    convs = [(256, 32, 32, 32), (256, 32, 32, 64), (2048, 32, 32, 32), (2048, 16, 16, 64),
             (2048, 32, 32, 16), (256, 32, 32, 16), (2048, 8, 8, 64)]
    if os.environ.get("CAL_SMALL"):
        convs = [(4, 8, 8, 8)]
    for name in ("tf32", "fp32", "f16", "bf16"):
        dt, prec = dtypes[name]
        for bsz, h, c_in, c_out in convs:
            try:
                x = jax.random.normal(key, (bsz, h, h, c_in), jnp.float32).astype(dt)
                w = jax.random.normal(key, (3, 3, c_in, c_out), jnp.float32).astype(dt)
                f = jax.jit(lambda x, w, p=prec: lax.conv_general_dilated(
                    x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                    precision=p))
                med, best = timed(f, x, w)
                flops = 2 * bsz * h * h * c_in * c_out * 9
                emit({"part": "conv", "dtype": name, "batch": bsz, "hw": h, "c_in": c_in,
                      "c_out": c_out, "s": med, "tflops": flops / med / 1e12})
            except Exception as exc:
                emit({"part": "conv", "dtype": name, "batch": bsz, "error": repr(exc)[:300]})
    # memory bandwidth: read + write of a 2 GiB float32 array; and of a bf16 one
    for dt in (jnp.float32, jnp.bfloat16):
        x = jnp.ones((1 << (16 if os.environ.get("CAL_SMALL") else 29),), dt)
        f = jax.jit(lambda v: v * 1.5 + 1)
        med, best = timed(f, x, reps=5)
        nbytes = 2 * x.size * x.dtype.itemsize
        emit({"part": "bandwidth", "dtype": str(x.dtype), "s": med,
              "tb_per_s": nbytes / med / 1e12, "tb_per_s_best": nbytes / best / 1e12})
        del x
    # the cost of one dispatched call: synchronous and pipelined
    f = jax.jit(lambda v: v + 1)
    v = jnp.ones((8,), jnp.float32)
    jax.block_until_ready(f(v))
    t = time.perf_counter()
    for _ in range(2000):
        jax.block_until_ready(f(v))
    sync_us = (time.perf_counter() - t) / 2000 * 1e6
    med, _ = timed(f, v, min_s=0.2)
    emit({"part": "dispatch", "sync_us": sync_us, "async_us": med * 1e6})
    # Keras fit's fixed cost per step: a model with next to no arithmetic
    import keras
    import numpy as np
    for batch in (32, 256, 2048):
        if os.environ.get("CAL_SMALL") and batch > 32:
            continue
        keras.backend.clear_session()
        inp = keras.Input((8,))
        model = keras.Model(inp, keras.layers.Dense(10, activation="softmax")(inp))
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss="sparse_categorical_crossentropy")
        steps = 400
        xs = np.random.default_rng(0).normal(size=(batch * steps, 8)).astype("float32")
        ys = np.zeros((batch * steps,), "int32")
        model.fit(xs[:batch * 3], ys[:batch * 3], batch_size=batch, verbose=0)
        times = []
        for _ in range(3):
            t = time.perf_counter()
            model.fit(xs, ys, batch_size=batch, epochs=1, verbose=0, shuffle=False)
            times.append(time.perf_counter() - t)
        emit({"part": "fit_fixed", "batch": batch, "steps": steps,
              "ms_per_step": statistics.median(times) / steps * 1000,
              "spread_ms": [x / steps * 1000 for x in times]})


SHAPE, CLASSES, SCALE = (32, 32, 3), 10, 1 / 255


def template(name, precision, steps, batches):
    import jax
    import keras
    import numpy as np

    if precision == "float32_highest":
        jax.config.update("jax_default_matmul_precision", "highest")
    from mpstudio.engine.memory_estimate import estimate_memory
    from mpstudio.engine.templates.model_input import input_scaling, model_input

    def build():
        policy = {"float8": "mixed_bfloat16", "float32_highest": "float32"}.get(
            precision, precision)
        keras.mixed_precision.set_global_policy(policy)
        with input_scaling(SCALE):
            if name == "wide_mlp":
                from keras import layers
                inputs, x = model_input(SHAPE)
                x = layers.Flatten()(x)
                x = layers.Dense(8192, activation="relu")(x)
                x = layers.Dense(8192, activation="relu")(x)
                x = layers.Dense(CLASSES)(x)
                out = layers.Activation("softmax", dtype="float32")(x)
                model = keras.Model(inputs, out)
            else:
                from mpstudio.engine.lazy_import import resolve
                from mpstudio.engine.templates.registry import template_entry
                model = resolve(template_entry(name).builder)(SHAPE, CLASSES)
        keras.mixed_precision.set_global_policy("float32")
        if precision == "float8":
            from mpstudio.engine.float8 import quantize_float8
            quantize_float8(model)
        return model

    rng = np.random.default_rng(0)
    dev = jax.local_devices()[0]
    for batch in batches:
        keras.backend.clear_session()
        model = build()
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss="sparse_categorical_crossentropy")
        n = batch * steps
        x = rng.integers(0, 256, size=(n, *SHAPE), dtype=np.uint8)
        y = rng.integers(0, CLASSES, size=(n,), dtype=np.int32)
        t = time.perf_counter()
        model.fit(x[:batch * 3], y[:batch * 3], batch_size=batch, epochs=1, verbose=0,
                  shuffle=False)
        warm = time.perf_counter() - t
        times = []
        for _ in range(3):
            t = time.perf_counter()
            h = model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
            times.append(time.perf_counter() - t)
        stats = dev.memory_stats() or {}
        try:
            est = estimate_memory(model, batch, model.optimizer, precision.replace(
                "float32_highest", "float32"))
            est_total = getattr(est, "total", None)
        except Exception as exc:
            est_total = repr(exc)[:200]
        med = statistics.median(times)
        emit({"part": "template", "template": name, "precision": precision, "batch": batch,
              "steps": steps, "ex_per_s": round(n / med, 1),
              "ms_per_step": round(1000 * med / steps, 4),
              "spread": [round(n / t_, 1) for t_ in times], "warmup_s": round(warm, 2),
              "peak_bytes": stats.get("peak_bytes_in_use"), "estimate_total": est_total,
              "loss": float(h.history["loss"][-1]), "params": model.count_params(),
              "device": str(dev.device_kind)})


# (template, precision, steps, batches), most wanted first
PLAN = (
    [(t, p, 200 if t == "mlp" else 60, [256, 1024])
     for t in ("mlp", "cnn", "resnet", "transformer")
     for p in ("float32", "mixed_float16", "mixed_bfloat16")]
    + [(t, "float8", 200 if t == "mlp" else 60, [256, 2048])
       for t in ("mlp", "transformer", "wide_mlp")]
    + [("lstm", "float32", 60, [256, 2048])]
    + [("mlp_bn", p, 200, [256, 2048])
       for p in ("float32", "mixed_float16", "mixed_bfloat16")]
    + [(t, "float32_highest", 60, [256, 2048]) for t in ("cnn", "transformer")]
    + [("wide_mlp", p, 60, [256]) for p in ("float32", "mixed_bfloat16")]
)


def plan(seconds):
    end = time.time() + seconds
    t = time.time()
    subprocess.run([sys.executable, __file__, "rates"], timeout=max(30, end - time.time()))
    emit({"part": "timing", "what": "rates", "s": time.time() - t})
    for name, precision, steps, batches in PLAN:
        left = end - time.time()
        if left < 25:
            emit({"part": "skipped", "template": name, "precision": precision})
            continue
        t = time.time()
        try:
            subprocess.run([sys.executable, __file__, "template", name, precision,
                            str(steps), *map(str, batches)], timeout=left)
        except subprocess.TimeoutExpired:
            emit({"part": "timeout", "template": name, "precision": precision})
        emit({"part": "timing", "what": f"{name}/{precision}", "s": time.time() - t})


if __name__ == "__main__":
    if sys.argv[1] == "rates":
        rates()
    elif sys.argv[1] == "template":
        template(sys.argv[2], sys.argv[3], int(sys.argv[4]), [int(b) for b in sys.argv[5:]])
    else:
        plan(float(sys.argv[2]))
