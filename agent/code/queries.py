"""The tags queries of each language (tree-sitter query syntax): definitions capture
`@def.<kind>` and `@name`; references capture `@ref`, `@member`, `@local` and `@module`
(see agent.code.languages, which pairs them with their grammars)."""

PY_DEFS = """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
"""

JS_DEFS = """
(class_declaration name: (_) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: (_) @name) @def.method
(lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)])) @def.function
(variable_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)])) @def.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (class))) @def.class
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @def.variable)
(program (export_statement (lexical_declaration
  (variable_declarator name: (identifier) @name)) @def.variable))
"""

TS_DEFS = (
    JS_DEFS
    + """
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(function_signature name: (_) @name) @def.function
(method_signature name: (_) @name) @def.method
(abstract_method_signature name: (_) @name) @def.method
(internal_module name: (_) @name) @def.module
"""
)
PY_REFS = """
(identifier) @ref
(attribute attribute: (identifier) @member)
(parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(default_parameter name: (identifier) @local)
(typed_parameter (identifier) @local)
(typed_default_parameter name: (identifier) @local)
(assignment left: (identifier) @local)
(augmented_assignment left: (identifier) @local)
(for_statement left: (identifier) @local)
(pattern_list (identifier) @local)
(keyword_argument name: (identifier) @local)
(import_from_statement module_name: (dotted_name (identifier) @module))
(import_statement name: (dotted_name (identifier) @module))
(aliased_import name: (dotted_name (identifier) @module))
"""
JS_LOCALS = """
(member_expression property: (property_identifier) @member)
(variable_declarator name: (identifier) @local)
(assignment_expression left: (identifier) @local)
"""
JS_REFS = (
    "[(identifier) (property_identifier) (shorthand_property_identifier)] @ref"
    + JS_LOCALS
    + "(formal_parameters (identifier) @local)"
)
TS_REFS = (
    "[(identifier) (property_identifier) (type_identifier)] @ref"
    + JS_LOCALS
    + """
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
"""
)

GO_DEFS = """
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
"""

RUST_DEFS = """
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.struct
(type_item name: (type_identifier) @name) @def.type
(trait_item name: (type_identifier) @name) @def.trait
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
(impl_item type: (_) @name) @def.impl
"""

JAVA_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
"""

C_DEFS = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.function
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: (identifier) @name))) @def.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name) @def.macro
(preproc_function_def name: (identifier) @name) @def.macro
"""

CPP_DEFS = (
    C_DEFS
    + """
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(namespace_definition name: (namespace_identifier) @name) @def.module
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier name: (_) @name))) @def.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name))
  @def.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name))
  @def.method
"""
)
C_REFS = """
[(identifier) (type_identifier) (field_identifier)] @ref
(field_identifier) @member
(parameter_declaration declarator: (identifier) @local)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local))
(init_declarator declarator: (identifier) @local)
(field_declaration declarator: (field_identifier) @local)
"""
RUST_REFS = """
[(identifier) (type_identifier) (field_identifier)] @ref
(field_identifier) @member
(let_declaration pattern: (identifier) @local)
(parameter pattern: (identifier) @local)
(closure_parameters (identifier) @local)
"""
GO_REFS = """
[(identifier) (type_identifier) (field_identifier)] @ref
(field_identifier) @member
(parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
"""
JAVA_REFS = """
[(identifier) (type_identifier)] @ref
(method_invocation name: (identifier) @member)
(field_access field: (identifier) @member)
(variable_declarator name: (identifier) @local)
(formal_parameter name: (identifier) @local)
"""
RUBY_REFS = """
[(identifier) (constant)] @ref
(call receiver: (_) method: (identifier) @member)
(assignment left: (identifier) @local)
(method_parameters (identifier) @local)
(block_parameters (identifier) @local)
"""

RUBY_DEFS = """
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
"""

CS_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name) @def.struct
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(property_declaration name: (identifier) @name) @def.property
(namespace_declaration name: (_) @name) @def.module
(file_scoped_namespace_declaration name: (_) @name) @def.module
"""

PHP_DEFS = """
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
(namespace_definition name: (namespace_name) @name) @def.module
"""
