"""The API's request and response shapes, a module per resource: import each from its module."""
