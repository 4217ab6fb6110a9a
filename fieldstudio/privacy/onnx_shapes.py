"""Free the batch, height and width of an ONNX model's graph inputs and outputs, in memory.

The CenterFace file declares a fixed input of 10 x 3 x 32 x 32 although the network is fully convolutional;
onnxruntime checks inputs against the declared shape, so the declared sizes of the named inputs and outputs are
replaced by symbolic ones before the session is made. Without the ``onnx`` package this reads and writes the
few protobuf messages involved (ModelProto.graph, GraphProto.input/output, ValueInfoProto.type, TypeProto's
tensor shape) from a descriptor written here; every other field passes through untouched as an unknown field.
"""

from __future__ import annotations

from functools import lru_cache

_PACKAGE = "fieldstudio_onnx_shapes"


@lru_cache(maxsize=1)
def _model_class():  # noqa: ANN202 - a protobuf message class made at run time
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field = descriptor_pb2.FieldDescriptorProto
    optional, repeated = field.LABEL_OPTIONAL, field.LABEL_REPEATED
    file = descriptor_pb2.FileDescriptorProto(name=f"{_PACKAGE}.proto", package=_PACKAGE, syntax="proto2")
    # Field numbers from onnx.proto (ModelProto.graph = 7, GraphProto.input = 11 and output = 12, ...).
    messages = {
        "Dimension": [("dim_value", 1, field.TYPE_INT64, optional, None),
                      ("dim_param", 2, field.TYPE_STRING, optional, None)],
        "Shape": [("dim", 1, field.TYPE_MESSAGE, repeated, "Dimension")],
        "Tensor": [("elem_type", 1, field.TYPE_INT32, optional, None),
                   ("shape", 2, field.TYPE_MESSAGE, optional, "Shape")],
        "Type": [("tensor_type", 1, field.TYPE_MESSAGE, optional, "Tensor")],
        "ValueInfo": [("name", 1, field.TYPE_STRING, optional, None),
                      ("type", 2, field.TYPE_MESSAGE, optional, "Type")],
        "Graph": [("input", 11, field.TYPE_MESSAGE, repeated, "ValueInfo"),
                  ("output", 12, field.TYPE_MESSAGE, repeated, "ValueInfo")],
        "Model": [("graph", 7, field.TYPE_MESSAGE, optional, "Graph")],
    }
    for name, fields in messages.items():
        message = file.message_type.add(name=name)
        for field_name, number, kind, label, type_name in fields:
            f = message.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                f.type_name = f".{_PACKAGE}.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.Model"))


def free_image_sizes(model_bytes: bytes, inputs: tuple[str, ...]) -> bytes:
    """The model with dimensions 0, 2 and 3 (batch, height, width) of the graph input(s) named in `inputs` and of
    every graph output made symbolic. Raises ValueError when the bytes are not such a model."""
    from google.protobuf.message import DecodeError

    model = _model_class()()
    try:
        model.ParseFromString(model_bytes)
    except DecodeError as exc:
        raise ValueError(f"not an ONNX model ({exc})") from None
    chosen = [v for v in model.graph.input if v.name in inputs]
    if len(chosen) != len(inputs) or not model.graph.output:
        raise ValueError("the model's inputs or outputs are not the expected ones")
    for value in chosen + list(model.graph.output):
        dims = value.type.tensor_type.shape.dim
        if len(dims) != 4:
            raise ValueError(f"{value.name} is not a 4-dimensional tensor")
        for position, symbol in ((0, "batch"), (2, "height"), (3, "width")):
            dims[position].ClearField("dim_value")
            dims[position].dim_param = f"{symbol}_{value.name}"
    return model.SerializeToString()
