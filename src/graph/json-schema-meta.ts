/**
 * The JSON Schema draft-07 meta-schema (the format's own definition, json-schema.org),
 * used to check that a workflow's `input:` is itself a valid schema. Kept as data so the
 * check needs no network and no code generation.
 */

const schemaArray = { type: 'array', minItems: 1, items: { $ref: '#' } };
const nonNegativeInteger = { type: 'integer', minimum: 0 };
const nonNegativeIntegerDefault0 = {
  allOf: [{ $ref: '#/definitions/nonNegativeInteger' }, { default: 0 }],
};
const simpleTypes = { enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] };
const stringArray = { type: 'array', items: { type: 'string' }, uniqueItems: true, default: [] };

/** The draft-07 meta-schema. */
export const DRAFT_07_META_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'http://json-schema.org/draft-07/schema#',
  definitions: {
    schemaArray,
    nonNegativeInteger,
    nonNegativeIntegerDefault0,
    simpleTypes,
    stringArray,
  },
  type: ['object', 'boolean'],
  properties: {
    $id: { type: 'string', format: 'uri-reference' },
    $schema: { type: 'string', format: 'uri' },
    $ref: { type: 'string', format: 'uri-reference' },
    $comment: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    default: true,
    readOnly: { type: 'boolean', default: false },
    writeOnly: { type: 'boolean', default: false },
    examples: { type: 'array', items: true },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    maximum: { type: 'number' },
    exclusiveMaximum: { type: 'number' },
    minimum: { type: 'number' },
    exclusiveMinimum: { type: 'number' },
    maxLength: { $ref: '#/definitions/nonNegativeInteger' },
    minLength: { $ref: '#/definitions/nonNegativeIntegerDefault0' },
    pattern: { type: 'string', format: 'regex' },
    additionalItems: { $ref: '#' },
    items: { anyOf: [{ $ref: '#' }, { $ref: '#/definitions/schemaArray' }], default: true },
    maxItems: { $ref: '#/definitions/nonNegativeInteger' },
    minItems: { $ref: '#/definitions/nonNegativeIntegerDefault0' },
    uniqueItems: { type: 'boolean', default: false },
    contains: { $ref: '#' },
    maxProperties: { $ref: '#/definitions/nonNegativeInteger' },
    minProperties: { $ref: '#/definitions/nonNegativeIntegerDefault0' },
    required: { $ref: '#/definitions/stringArray' },
    additionalProperties: { $ref: '#' },
    definitions: { type: 'object', additionalProperties: { $ref: '#' }, default: {} },
    properties: { type: 'object', additionalProperties: { $ref: '#' }, default: {} },
    patternProperties: {
      type: 'object',
      additionalProperties: { $ref: '#' },
      propertyNames: { format: 'regex' },
      default: {},
    },
    dependencies: {
      type: 'object',
      additionalProperties: { anyOf: [{ $ref: '#' }, { $ref: '#/definitions/stringArray' }] },
    },
    propertyNames: { $ref: '#' },
    const: true,
    enum: { type: 'array', items: true },
    type: {
      anyOf: [
        { $ref: '#/definitions/simpleTypes' },
        {
          type: 'array',
          items: { $ref: '#/definitions/simpleTypes' },
          minItems: 1,
          uniqueItems: true,
        },
      ],
    },
    format: { type: 'string' },
    contentMediaType: { type: 'string' },
    contentEncoding: { type: 'string' },
    if: { $ref: '#' },
    // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
    then: { $ref: '#' },
    else: { $ref: '#' },
    allOf: { $ref: '#/definitions/schemaArray' },
    anyOf: { $ref: '#/definitions/schemaArray' },
    oneOf: { $ref: '#/definitions/schemaArray' },
    not: { $ref: '#' },
  },
  default: true,
} as const;
