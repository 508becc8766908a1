//! video-metadata-extraction: the speaker's name, organisation and position from a
//! video transcript (often lower case, unpunctuated, with fillers). Each is null
//! unless stated; `extra_information` gives the confidence, the evidence for each
//! field, other people and the product mentioned, and the language. In an
//! interview the fields describe the customer, never the interviewer (speaker
//! labels are read when present); a transcript in another language gives null
//! fields. With the optional LLM, a value it proposes is kept only if the
//! transcript states it.

use gleaner_sdk::llm;
use gleaner_sdk::request::QueryInput;
use gleaner_text::transcript::{self, Found, Speaker};
use serde_json::{json, Value};

gleaner_sdk::export_processor!(process);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    let input: QueryInput =
        gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let text = input.query.as_str();
    let speaker = transcript::speaker(text);
    let (fields, engine) = match llm_fields(text) {
        Some(f) => (f, "llm"),
        None => (rule_fields(&speaker), "rules"),
    };
    let evidence = |f: &Option<Found>| {
        f.as_ref()
            .map(|f| json!({ "text": f.evidence, "start": f.start }))
    };
    let body = json!({
        "author_name": fields[0],
        "author_organisation": fields[1],
        "author_position": fields[2],
        "extra_information": {
            "confidence": speaker.confidence,
            "evidence": {
                "author_name": evidence(&speaker.name),
                "author_organisation": evidence(&speaker.organisation),
                "author_position": evidence(&speaker.position),
            },
            "other_people": speaker.other_people,
            "product": speaker.product,
            "language": speaker.language,
            "engine": engine,
        },
    });
    Ok(Output {
        body: body.to_string(),
        engine: engine.into(),
    })
}

fn rule_fields(s: &Speaker) -> [Option<String>; 3] {
    let value = |f: &Option<Found>| f.as_ref().map(|f| f.value.clone());
    [value(&s.name), value(&s.organisation), value(&s.position)]
}

/// The LLM's fields, each kept only when the transcript contains it (case-insensitive).
fn llm_fields(text: &str) -> Option<[Option<String>; 3]> {
    if !llm::enabled() {
        return None;
    }
    let system = "From this video testimonial transcript, extract the customer's own name, organisation and job title, \
        only if stated. In an interview the customer is the one answering, never the interviewer. Answer with JSON only: \
        {\"author_name\": string|null, \"author_organisation\": string|null, \"author_position\": string|null}.";
    let answer: Value = serde_json::from_str(&llm::ask(system, text, 200).ok()?).ok()?;
    let lower = text.to_lowercase();
    let stated = |key: &str| {
        answer[key]
            .as_str()
            .map(str::trim)
            .filter(|v| !v.is_empty() && lower.contains(&v.to_lowercase()))
            .map(transcript::title_case)
    };
    Some([
        stated("author_name"),
        stated("author_organisation"),
        stated("author_position"),
    ])
}
