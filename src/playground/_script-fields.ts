/**
 * The playground's browser script, the inputs of an elicitation form and the value rules they
 * are checked with: the same rules and messages as the front's `valueProblem`
 * (`src/checks/_field-value.ts`) and string formats (`src/checks/_string-formats.ts`).
 *
 * @module
 */

/** `fieldInput(field, id, describedBy)` and `valueProblem(field, value)`. */
export const SCRIPT_FIELDS: string = String.raw`
const FORMAT_NAMES = {
  email: "an email address",
  uri: "an absolute URI with a scheme",
  date: "a calendar date (YYYY-MM-DD)",
  "date-time": "an RFC 3339 date-time with a time zone offset",
};
const INPUT_TYPES = { email: "email", uri: "url", date: "date" };
const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_\x60{|}~\u0080-\uffff]+";
const LABEL = "[A-Za-z0-9\u0080-\uffff](?:[A-Za-z0-9\\-\u0080-\uffff]{0,61}[A-Za-z0-9\u0080-\uffff])?";
const EMAIL = new RegExp("^" + ATEXT + "(?:\\." + ATEXT + ")*@" + LABEL + "(?:\\." + LABEL + ")+$");
const URI = /^[A-Za-z][A-Za-z0-9+.\-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;

function fieldInput(field, id, describedBy) {
  const common = {
    id: id,
    "aria-describedby": describedBy,
    "aria-required": field.required ? "true" : undefined,
  };
  if (field.kind === "boolean") {
    const box = el("input", Object.assign({ type: "checkbox" }, common));
    box.checked = field.default === true;
    const node = el("div", { class: "field" }, [
      box,
      el("label", { class: "inline", for: id, text: field.title }),
    ]);
    return { node: node, targets: [box], read: () => ({ value: box.checked }) };
  }
  if (field.kind === "multi") {
    const chosen = Array.isArray(field.default) ? field.default : [];
    const boxes = field.values.map((value, index) => {
      const boxId = id + "-" + index;
      const box = el("input", { type: "checkbox", id: boxId, value: value });
      box.checked = chosen.includes(value);
      return {
        box: box,
        node: el("div", null, [box, el("label", { class: "inline", for: boxId, text: field.titles[index] })]),
      };
    });
    const node = el("fieldset", { id: id, "aria-describedby": describedBy }, [
      el("legend", { text: field.title }),
      ...boxes.map((b) => b.node),
    ]);
    const read = () => ({ value: field.values.filter((_, index) => boxes[index].box.checked) });
    return { node: node, targets: boxes.length > 0 ? boxes.map((b) => b.box) : [node], read: read };
  }
  if (field.kind === "enum") {
    const select = el("select", common, [el("option", { value: "", text: "(choose)" })]);
    field.values.forEach((value, index) =>
      select.append(el("option", { value: String(index), text: field.titles[index] }))
    );
    const at = field.values.indexOf(field.default);
    if (at >= 0) select.value = String(at);
    const read = () => ({ value: select.value === "" ? undefined : field.values[Number(select.value)] });
    return { node: select, targets: [select], read: read };
  }
  if (field.kind === "number") {
    const input = el(
      "input",
      Object.assign({
        type: "number",
        step: field.integer ? "1" : "any",
        min: field.minimum,
        max: field.maximum,
      }, common),
    );
    if (typeof field.default === "number") input.value = String(field.default);
    const read = () => {
      if (input.validity.badInput) {
        return { problem: "expected " + (field.integer ? "an integer" : "a number") + ", received a string" };
      }
      return { value: input.value === "" ? undefined : Number(input.value) };
    };
    return { node: input, targets: [input], read: read };
  }
  const type = INPUT_TYPES[field.format] || "text";
  const input = el(
    "input",
    Object.assign({
      type: type,
      placeholder: field.format === "date-time" ? "2026-07-28T09:30:00Z" : undefined,
    }, common),
  );
  if (typeof field.default === "string") input.value = field.default;
  return {
    node: input,
    targets: [input],
    read: () => ({ value: input.value === "" ? undefined : input.value }),
  };
}

function kindOf(value) {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : "a " + typeof value;
}

function valueProblem(field, value) {
  switch (field.kind) {
    case "string":
      return stringProblem(field, value);
    case "number":
      return numberProblem(field, value);
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected a boolean, received " + kindOf(value);
    case "enum":
      if (typeof value !== "string") return "expected a string, received " + kindOf(value);
      return field.values.includes(value)
        ? undefined
        : "expected one of the " + field.values.length + " allowed values";
    case "multi":
      return multiProblem(field, value);
  }
  return undefined;
}

function stringProblem(field, value) {
  if (typeof value !== "string") return "expected a string, received " + kindOf(value);
  if (!value.isWellFormed()) return "expected well-formed Unicode text, received a lone surrogate";
  const length = Array.from(value).length;
  if (field.minLength !== undefined && length < field.minLength) {
    return "expected at least " + field.minLength + " characters";
  }
  if (field.maxLength !== undefined && length > field.maxLength) {
    return "expected at most " + field.maxLength + " characters";
  }
  if (FORMAT_NAMES[field.format] !== undefined && !fitsFormat(field.format, value)) {
    return "expected " + FORMAT_NAMES[field.format];
  }
  return undefined;
}

function numberProblem(field, value) {
  if (typeof value !== "number") {
    return "expected " + (field.integer ? "an integer" : "a number") + ", received " + kindOf(value);
  }
  if (!Number.isFinite(value)) return "expected a finite number";
  if (field.integer && !Number.isInteger(value)) {
    return "expected an integer, received a number with a fraction";
  }
  if (field.minimum !== undefined && value < field.minimum) return "expected at least " + field.minimum;
  if (field.maximum !== undefined && value > field.maximum) return "expected at most " + field.maximum;
  return undefined;
}

function multiProblem(field, value) {
  if (!Array.isArray(value)) return "expected an array of strings, received " + kindOf(value);
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== "string") {
      return "expected an array of strings, received " + kindOf(value[i]) + " at index " + i;
    }
    if (!field.values.includes(value[i])) {
      return "expected only allowed values, received another value at index " + i;
    }
    if (value.indexOf(value[i]) < i) return "expected unique values, received a repeated value at index " + i;
  }
  if (field.minItems !== undefined && value.length < field.minItems) {
    return "expected at least " + field.minItems + " selected values, received " + value.length;
  }
  if (field.maxItems !== undefined && value.length > field.maxItems) {
    return "expected at most " + field.maxItems + " selected values, received " + value.length;
  }
  return undefined;
}

function fitsFormat(format, value) {
  if (format === "email") return isEmail(value);
  if (format === "uri") return URI.test(value);
  if (format === "date") return isDate(value);
  return isDateTime(value);
}

function isEmail(value) {
  if (value.length > 254 || !EMAIL.test(value) || value.indexOf("@") > 64) return false;
  const last = value.slice(value.lastIndexOf(".") + 1);
  return !/^\d+$/.test(last) && !INVISIBLE.test(value);
}

function isDate(value) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return month >= 1 && month <= 12 && day >= 1 && day <= days;
}

function isDateTime(value) {
  const match = DATE_TIME.exec(value);
  if (match === null || !isDate(match[1])) return false;
  const hour = Number(match[2]);
  const minute = Number(match[3]);
  const second = Number(match[4]);
  if (hour > 23 || minute > 59 || second > 60) return false;
  let offset = 0;
  if (match[5] === undefined) {
    const offsetHour = Number(match[7]);
    const offsetMinute = Number(match[8]);
    if (offsetHour > 23 || offsetMinute > 59) return false;
    offset = (match[6] === "+" ? 1 : -1) * (offsetHour * 60 + offsetMinute);
  }
  if (second === 60) return (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;
  return true;
}
`;
