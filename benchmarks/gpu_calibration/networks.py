"""The standard networks the prediction is checked on, built as Keras 3 models at their
usual sizes (no weights are downloaded: only shapes matter), under a dtype policy:
Keras Applications for the convolutional ones, and encoders made of Keras layers for
BERT and ViT (the sizes of the published models: hidden 768/1024, 12/24 layers,
12/16 heads, an MLP 4x wide, GELU).

    build("resnet50", "mixed_float16") -> keras.Model

Each network's name is the one the measurement files use (published_single_gpu.jsonl).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# name -> (Keras Applications class, image size)
IMAGE_NETS = {
    "resnet50_v1": ("ResNet50", 224), "resnet101_v1": ("ResNet101", 224),
    "resnet152_v1": ("ResNet152", 224), "vgg16": ("VGG16", 224),
    "inception_v3": ("InceptionV3", 299), "efficientnet_b0": ("EfficientNetB0", 224),
    "efficientnet_b4": ("EfficientNetB4", 380), "efficientnet_v2_s": ("EfficientNetV2S", 300),
    "mobilenet_v2": ("MobileNetV2", 224), "densenet121": ("DenseNet121", 224),
}
# name -> (layers, hidden, heads, sequence length, head): "pretrain" the masked-token
# and next-sentence heads, "squad" a start/end logit per token, "classify" the first
# token's class
ENCODERS = {
    "bert_base_128": (12, 768, 12, 128, "classify"),
    "bert_base_512": (12, 768, 12, 512, "classify"),
    "bert_large_pretrain_128": (24, 1024, 16, 128, "pretrain"),
    "bert_large_pretrain_512": (24, 1024, 16, 512, "pretrain"),
    "bert_large_squad_384": (24, 1024, 16, 384, "squad"),
    "bert_base_squad_384": (12, 768, 12, 384, "squad"),
    "electra_base_squad_384": (12, 768, 12, 384, "squad"),
}
VOCABULARY = 30522
# ResNet-50 v1.5 and the ResNeXt-101 32x4d family: (blocks per stage, cardinality,
# width per group, squeeze-and-excitation)
BOTTLENECK_NETS = {
    "resnet50_v1.5": ((3, 4, 6, 3), 1, 64, False),
    "resnext101_32x4d": ((3, 4, 23, 3), 32, 4, False),
    "se_resnext101_32x4d": ((3, 4, 23, 3), 32, 4, True),
}


def _encoder_block(x: Any, hidden: int, heads: int, name: str, dropout: float = 0.1) -> Any:
    """A post-norm Transformer block with BERT's dropout (0.1 on the attention
    probabilities and on each branch's output)."""
    from keras import layers

    attention = layers.MultiHeadAttention(heads, hidden // heads, dropout=dropout,
                                          name=f"{name}_attention")
    y = layers.Dropout(dropout)(attention(x, x))
    x = layers.LayerNormalization(name=f"{name}_ln1")(layers.Add(name=f"{name}_add1")([x, y]))
    y = layers.Dense(4 * hidden, activation="gelu", name=f"{name}_mlp1")(x)
    y = layers.Dropout(dropout)(layers.Dense(hidden, name=f"{name}_mlp2")(y))
    return layers.LayerNormalization(name=f"{name}_ln2")(layers.Add(name=f"{name}_add2")([x, y]))


def bert(depth: int, hidden: int, heads: int, tokens: int, head: str = "classify",
         vocabulary: int = VOCABULARY) -> Any:
    """A BERT encoder (token embeddings, post-norm blocks) with the head its task trains:
    pretraining predicts the masked tokens (15%: 20 of 128) over the vocabulary."""
    import keras
    from keras import layers

    inputs = keras.Input((tokens,), dtype="int32")
    x = layers.Embedding(vocabulary, hidden, name="tokens")(inputs)
    x = layers.LayerNormalization(name="embedding_ln")(x)
    for i in range(depth):
        x = _encoder_block(x, hidden, heads, f"block{i}")
    if head == "squad":  # a start and an end logit per token
        x = layers.Flatten()(layers.Dense(2, name="span")(x))
    elif head == "pretrain":
        masked = layers.Dense(hidden, activation="gelu", name="mlm_transform")(
            x[:, : max(1, int(0.15 * tokens))])
        masked = layers.LayerNormalization(name="mlm_ln")(masked)
        x = layers.Flatten()(layers.Dense(vocabulary, name="mlm_logits")(masked))
    else:
        x = layers.Dense(hidden, activation="tanh", name="pooler")(x[:, 0])
        x = layers.Dense(2, name="logits")(x)
    return keras.Model(inputs, layers.Activation("softmax", dtype="float32")(x))


def _bottleneck(x: Any, filters: int, strides: int, groups: int, width: int, se: bool,
                name: str) -> Any:
    """A v1.5 bottleneck: the stride on the 3x3 convolution, which is grouped in ResNeXt."""
    from keras import layers

    inner = filters // 4 if groups == 1 else groups * width * filters // 256
    shortcut = x
    if strides != 1 or x.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=strides, use_bias=False,
                                 name=f"{name}_proj")(x)
        shortcut = layers.BatchNormalization(name=f"{name}_proj_bn")(shortcut)
    y = layers.Conv2D(inner, 1, use_bias=False, name=f"{name}_1")(x)
    y = layers.Activation("relu")(layers.BatchNormalization(name=f"{name}_1_bn")(y))
    y = layers.Conv2D(inner, 3, strides=strides, padding="same", groups=groups,
                      use_bias=False, name=f"{name}_2")(y)
    y = layers.Activation("relu")(layers.BatchNormalization(name=f"{name}_2_bn")(y))
    y = layers.Conv2D(filters, 1, use_bias=False, name=f"{name}_3")(y)
    y = layers.BatchNormalization(name=f"{name}_3_bn")(y)
    if se:
        s = layers.GlobalAveragePooling2D(keepdims=True)(y)
        s = layers.Conv2D(filters // 16, 1, activation="relu", name=f"{name}_se1")(s)
        s = layers.Conv2D(filters, 1, activation="sigmoid", name=f"{name}_se2")(s)
        y = layers.Multiply()([y, s])
    return layers.Activation("relu")(layers.Add()([y, shortcut]))


def bottleneck_net(stages: tuple[int, ...], groups: int, width: int, se: bool,
                   image: int = 224, classes: int = 1000) -> Any:
    import keras
    from keras import layers

    inputs = keras.Input((image, image, 3))
    x = layers.Conv2D(64, 7, strides=2, padding="same", use_bias=False, name="stem")(inputs)
    x = layers.Activation("relu")(layers.BatchNormalization(name="stem_bn")(x))
    x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    for stage, blocks in enumerate(stages):
        for block in range(blocks):
            strides = 2 if stage > 0 and block == 0 else 1
            x = _bottleneck(x, 256 * 2 ** stage, strides, groups, width, se,
                            f"s{stage}b{block}")
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(classes, name="logits")(x)
    return keras.Model(inputs, layers.Activation("softmax", dtype="float32")(x))


def unet(image: int = 572, classes: int = 2) -> Any:
    """Ronneberger's U-Net (valid convolutions, 64 to 1024 channels), as NVIDIA's
    U-Net Medical trains it on 572x572 single-channel images."""
    import keras
    from keras import layers

    inputs = keras.Input((image, image, 1))
    x, skips = inputs, []
    for i, filters in enumerate((64, 128, 256, 512, 1024)):
        x = layers.Conv2D(filters, 3, activation="relu", name=f"down{i}a")(x)
        x = layers.Conv2D(filters, 3, activation="relu", name=f"down{i}b")(x)
        if filters < 1024:
            skips.append(x)
            x = layers.MaxPooling2D(2)(x)
    for i, filters in enumerate((512, 256, 128, 64)):
        x = layers.Conv2DTranspose(filters, 2, strides=2, name=f"up{i}")(x)
        skip = skips.pop()
        crop = (skip.shape[1] - x.shape[1]) // 2
        x = layers.Concatenate()([layers.Cropping2D(crop)(skip), x])
        x = layers.Conv2D(filters, 3, activation="relu", name=f"up{i}a")(x)
        x = layers.Conv2D(filters, 3, activation="relu", name=f"up{i}b")(x)
    x = layers.Flatten()(layers.Conv2D(classes, 1, name="logits")(x))
    return keras.Model(inputs, layers.Activation("softmax", dtype="float32")(x))


def alexnet(image: int = 227, classes: int = 1000) -> Any:
    """AlexNet as tf_cnn_benchmarks builds it (64/192/384/256/256, two 4096 layers)."""
    import keras
    from keras import layers

    inputs = keras.Input((image, image, 3))
    x = layers.Conv2D(64, 11, strides=4, activation="relu")(inputs)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = layers.Conv2D(192, 5, padding="same", activation="relu")(x)
    x = layers.MaxPooling2D(3, strides=2)(x)
    for filters in (384, 256, 256):
        x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    x = layers.Flatten()(layers.MaxPooling2D(3, strides=2)(x))
    for _ in range(2):
        x = layers.Dropout(0.5)(layers.Dense(4096, activation="relu")(x))
    x = layers.Dense(classes)(x)
    return keras.Model(inputs, layers.Activation("softmax", dtype="float32")(x))


def vit(depth: int = 12, hidden: int = 768, heads: int = 12, image: int = 224,
        patch: int = 16, classes: int = 1000) -> Any:
    """ViT-B/16: 16x16 patches by a strided convolution, then the encoder."""
    import keras
    from keras import layers

    inputs = keras.Input((image, image, 3))
    x = layers.Conv2D(hidden, patch, strides=patch, name="patches")(inputs)
    x = layers.Reshape(((image // patch) ** 2, hidden))(x)
    for i in range(depth):
        x = _encoder_block(x, hidden, heads, f"block{i}")
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(classes, name="logits")(x)
    return keras.Model(inputs, layers.Activation("softmax", dtype="float32")(x))


def wide_mlp(width: int = 8192, depth: int = 2, features: int = 3072,
             classes: int = 10) -> Any:
    import keras
    from keras import layers

    inputs = keras.Input((features,))
    x = inputs
    for i in range(depth):
        x = layers.Dense(width, activation="relu", name=f"dense{i}")(x)
    x = layers.Dense(classes)(x)
    return keras.Model(inputs, layers.Activation("softmax", dtype="float32")(x))


def _application(name: str) -> Callable[[], Any]:
    import keras

    cls, size = IMAGE_NETS[name]
    return lambda: getattr(keras.applications, cls)(weights=None,
                                                     input_shape=(size, size, 3))


def build(name: str, policy: str) -> Any:
    """``name`` under ``policy`` (the global policy restored after)."""
    from mpstudio.engine.float8 import keras_policy, quantize_float8
    from mpstudio.engine.precision import policy_scope

    makers: dict[str, Callable[[], Any]] = {"vit_b16": vit, "wide_mlp": wide_mlp,
                                            "unet_medical": unet, "alexnet": alexnet}
    if name in IMAGE_NETS:
        make = _application(name)
    elif name in ENCODERS:
        make = lambda: bert(*ENCODERS[name])  # noqa: E731
    elif name in BOTTLENECK_NETS:
        make = lambda: bottleneck_net(*BOTTLENECK_NETS[name])  # noqa: E731
    elif name in makers:
        make = makers[name]
    else:
        raise KeyError(f"no network called {name!r}")
    with policy_scope(keras_policy(policy)):
        model = make()
    if policy == "float8":
        quantize_float8(model)
    return model


NAMES = (*IMAGE_NETS, *ENCODERS, *BOTTLENECK_NETS, "vit_b16", "wide_mlp", "unet_medical",
         "alexnet")
