// placeholder: the context-aware refresh script lands with the Session layer.
