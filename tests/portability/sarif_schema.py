"""The SARIF 2.1.0 schema's rules for the objects sgvm writes, written out as data.

No PyPI package ships the schema file (``sarif-om`` and ``sarif-tools`` hold none), so the
definitions of OASIS's ``sarif-schema-2.1.0.json`` that a log of sgvm reaches are
transcribed here: every definition is ``"additionalProperties": false`` (only the listed
properties may appear), with its ``required`` properties and, per property, its type,
``minimum``, ``enum``, ``format`` (``uri``, ``uri-reference``: RFC 3986 characters only)
and ``uniqueItems``. Properties a definition allows but sgvm does not write are listed by
name only (``UNUSED``): meeting one fails, so a new property gets its rule here first.
"""

from __future__ import annotations

import json
import re
from typing import Any

UNUSED = ("unused",)
STRING = ("string",)
URI = ("string", "uri")
URI_REFERENCE = ("string", "uri-reference")
INDEX = ("integer", -1)  # "type": "integer", "minimum": -1
POSITIVE = ("integer", 1)
LEVEL = ("enum", ("none", "note", "warning", "error"))


def ref(name: str) -> tuple:
    return ("ref", name)


def array(items: tuple, unique: bool) -> tuple:
    return ("array", items, unique)


# definition -> (required, anyOf-required alternatives, {property: rule})
DEFINITIONS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, ...], ...], dict[str, tuple]]] = {
    "sarifLog": (("version", "runs"), (), {
        "$schema": URI, "version": ("enum", ("2.1.0",)), "runs": array(ref("run"), False),
        "inlineExternalProperties": UNUSED, "properties": ref("propertyBag")}),
    "run": (("tool",), (), {
        "tool": ref("tool"), "results": array(ref("result"), False), "properties": ref("propertyBag"),
        **dict.fromkeys((
            "invocations", "conversion", "language", "versionControlProvenance", "originalUriBaseIds",
            "artifacts", "logicalLocations", "graphs", "automationDetails", "runAggregates",
            "baselineGuid", "redactionTokens", "defaultEncoding", "defaultSourceLanguage",
            "newlineSequences", "columnKind", "externalPropertyFileReferences", "threadFlowLocations",
            "taxonomies", "addresses", "translations", "policies", "webRequests", "webResponses",
            "specialLocations"), UNUSED)}),
    "tool": (("driver",), (), {
        "driver": ref("toolComponent"), "extensions": UNUSED, "properties": ref("propertyBag")}),
    "toolComponent": (("name",), (), {
        "name": STRING, "version": STRING, "rules": array(ref("reportingDescriptor"), True),
        "informationUri": URI, "properties": ref("propertyBag"),
        **dict.fromkeys((
            "guid", "organization", "product", "productSuite", "shortDescription", "fullDescription",
            "fullName", "semanticVersion", "dottedQuadFileVersion", "releaseDateUtc", "downloadUri",
            "globalMessageStrings", "notifications", "taxa", "locations", "language", "contents",
            "isComprehensive", "localizedDataSemanticVersion",
            "minimumRequiredLocalizedDataSemanticVersion", "associatedComponent", "translationMetadata",
            "supportedTaxonomies"), UNUSED)}),
    "reportingDescriptor": (("id",), (), {
        "id": STRING, "name": STRING, "shortDescription": ref("multiformatMessageString"),
        "fullDescription": ref("multiformatMessageString"), "help": ref("multiformatMessageString"),
        "helpUri": URI, "properties": ref("propertyBag"),
        **dict.fromkeys(("deprecatedIds", "guid", "deprecatedGuids", "deprecatedNames", "messageStrings",
                         "defaultConfiguration", "relationships"), UNUSED)}),
    "multiformatMessageString": (("text",), (), {
        "text": STRING, "markdown": STRING, "properties": ref("propertyBag")}),
    "result": (("message",), (), {
        "ruleId": STRING, "ruleIndex": INDEX, "level": LEVEL, "message": ref("message"),
        "locations": array(ref("location"), False), "relatedLocations": array(ref("location"), True),
        "properties": ref("propertyBag"),
        **dict.fromkeys((
            "rule", "kind", "analysisTarget", "guid", "correlationGuid", "occurrenceCount",
            "partialFingerprints", "fingerprints", "stacks", "codeFlows", "graphs", "graphTraversals",
            "suppressions", "baselineState", "rank", "attachments", "hostedViewerUri", "workItemUris",
            "provenance", "fixes", "taxa", "webRequest", "webResponse"), UNUSED)}),
    # a message has text, or an id into the rule's messageStrings (the OASIS schema's anyOf)
    "message": ((), (("text",), ("id",)), {
        "text": STRING, "markdown": STRING, "id": STRING, "arguments": array(STRING, False),
        "properties": ref("propertyBag")}),
    "location": ((), (), {
        "id": INDEX, "physicalLocation": ref("physicalLocation"), "message": ref("message"),
        "properties": ref("propertyBag"),
        **dict.fromkeys(("logicalLocations", "annotations", "relationships"), UNUSED)}),
    # a physicalLocation has an address or an artifactLocation (the OASIS schema's anyOf)
    "physicalLocation": ((), (("address",), ("artifactLocation",)), {
        "artifactLocation": ref("artifactLocation"), "region": ref("region"),
        "contextRegion": ref("region"), "properties": ref("propertyBag"), "address": UNUSED}),
    "artifactLocation": ((), (), {
        "uri": URI_REFERENCE, "uriBaseId": STRING, "index": INDEX, "properties": ref("propertyBag"),
        "description": UNUSED}),
    # a text region starts at startLine or charOffset, a binary one at byteOffset (the specification)
    "region": ((), (("startLine",), ("charOffset",), ("byteOffset",)), {
        "startLine": POSITIVE, "startColumn": POSITIVE, "endLine": POSITIVE, "endColumn": POSITIVE,
        "charOffset": INDEX, "charLength": ("integer", 0), "byteOffset": INDEX,
        "byteLength": ("integer", 0), "message": ref("message"), "sourceLanguage": STRING,
        "properties": ref("propertyBag"), "snippet": UNUSED}),
}

# RFC 3986: a URI reference holds unreserved and reserved characters and %XX escapes only.
_URI_CHARS = re.compile(r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+\-.]*:")


class SarifError(AssertionError):
    """A log breaks a rule of the SARIF 2.1.0 schema."""


def validate(log: Any) -> None:
    """Raise SarifError naming the first place where ``log`` breaks the schema."""
    _object(log, "sarifLog", "$")


def _object(value: Any, name: str, path: str) -> None:
    if not isinstance(value, dict):
        raise SarifError(f"{path}: a {name} is an object, not {type(value).__name__}")
    if name == "propertyBag":  # "additionalProperties": true; "tags": unique strings
        if "tags" in value:
            _check(value["tags"], array(STRING, True), f"{path}.tags")
        return
    required, any_of, rules = DEFINITIONS[name]
    for key in required:
        if key not in value:
            raise SarifError(f"{path}: a {name} requires '{key}'")
    if any_of and not any(all(k in value for k in alt) for alt in any_of):
        raise SarifError(f"{path}: a {name} needs one of {', '.join(a[0] for a in any_of)}")
    for key, item in value.items():
        if key not in rules:
            raise SarifError(f"{path}: '{key}' is not a property of {name} (additionalProperties: false)")
        if rules[key] is UNUSED:
            raise SarifError(f"{path}: '{key}' of {name} has no rule written out here; add it")
        _check(item, rules[key], f"{path}.{key}")


def _check(value: Any, rule: tuple, path: str) -> None:
    kind = rule[0]
    if kind == "ref":
        _object(value, rule[1], path)
    elif kind == "string":
        if not isinstance(value, str):
            raise SarifError(f"{path}: a string, not {value!r}")
        if len(rule) > 1:
            _uri(value, absolute=rule[1] == "uri", path=path)
    elif kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool) or value < rule[1]:
            raise SarifError(f"{path}: an integer of at least {rule[1]}, not {value!r}")
    elif kind == "enum":
        if value not in rule[1]:
            raise SarifError(f"{path}: one of {', '.join(rule[1])}, not {value!r}")
    elif kind == "array":
        if not isinstance(value, list):
            raise SarifError(f"{path}: an array, not {type(value).__name__}")
        if rule[2] and len({json.dumps(v, sort_keys=True) for v in value}) != len(value):
            raise SarifError(f"{path}: items must be unique (uniqueItems: true)")
        for i, item in enumerate(value):
            _check(item, rule[1], f"{path}[{i}]")


def _uri(value: str, absolute: bool, path: str) -> None:
    if not _URI_CHARS.match(value):
        raise SarifError(f"{path}: {value!r} is not an RFC 3986 URI reference (escape it: %XX)")
    if absolute and not _SCHEME.match(value):
        raise SarifError(f"{path}: {value!r} is not an absolute URI (format: uri)")
