//! Credentials never reach the event log, and nothing else is taken for one.
//!
//! Secrets of every kind a scanner catches are planted in every message of every source's
//! corpus, as text inside the strings the mapping copies and as keys and values in the message's
//! tree; none of them is found in the normalized output, while `keep_secrets` lets them through
//! (so the planting reaches the output and the test can fail). Non-secrets that look like them
//! (an `api-key` object under `_meta`, token counts, `tokenizer.py`, `apiKeySource: "none"`) are
//! planted the same way and come out byte for byte as without redaction. Every expectation is
//! written here; none is computed with the library's redaction.

use agentwire::frame::LineFormat;
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_tests::{trace_name, traces};
use serde_json::{Value, json};

/// Every planted secret holds it but Twilio's (hex digits); no redacted output may.
const MARKER: &str = "PLANTED";

/// A credential in text of each kind: (kind, the text planted, the part of it that is the secret).
const TEXT_SECRETS: &[(&str, &str, &str)] = &[
    (
        "github token",
        "git push https://github.com/o/r ghp_PLANTEDgithubPat0123456789abcdefghij",
        "ghp_PLANTEDgithubPat0123456789abcdefghij",
    ),
    (
        "aws key id",
        "aws_access_key_id = AKIAPLANTED234567ABC",
        "AKIAPLANTED234567ABC",
    ),
    (
        "aws secret",
        "AWS_SECRET_ACCESS_KEY=PLANTEDawsSecret0123456789abcdefghijklmn",
        "PLANTEDawsSecret0123456789abcdefghijklmn",
    ),
    (
        "slack token",
        "SLACK=xoxb-123456789012-1234567890123-PLANTEDslack",
        "xoxb-123456789012-1234567890123-PLANTEDslack",
    ),
    (
        "jwt",
        "id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQTEFOVEVEIn0.PLANTEDjwtSignature0123 ok",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQTEFOVEVEIn0.PLANTEDjwtSignature0123",
    ),
    (
        "openssh private key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nPLANTEDopensshBody0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nPLANTEDopensshBody",
    ),
    (
        "password in a url",
        "psql postgres://app:PLANTEDdbUrl99@db.internal:5432/app",
        ":PLANTEDdbUrl99@",
    ),
    (
        "refresh_token in text",
        "the reply set refresh_token=PLANTEDrefresh0123 and expired",
        "PLANTEDrefresh0123",
    ),
    (
        "GITHUB_TOKEN",
        "export GITHUB_TOKEN=PLANTEDgithubEnv0123",
        "PLANTEDgithubEnv0123",
    ),
    (
        "openai_api_key",
        "openai_api_key: PLANTEDopenai0123",
        "PLANTEDopenai0123",
    ),
    ("db_password", "db_password=\"PLANTEDdbPassword\"", "PLANTEDdbPassword"),
    (
        "bearer token",
        "curl -H 'Authorization: Bearer PLANTEDbearer1' https://api.example.com",
        "PLANTEDbearer1",
    ),
    ("x-api-key header", "x-api-key: PLANTEDxApiKey2", "PLANTEDxApiKey2"),
    (
        "sk- key",
        "OPENAI=sk-PLANTEDskKey0123456789",
        "sk-PLANTEDskKey0123456789",
    ),
    (
        "gitlab token",
        "git remote set-url origin https://oauth2@gitlab.com/o/r.git # glpat-PLANTEDgitlab0123456",
        "glpat-PLANTEDgitlab0123456",
    ),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken npm_PLANTEDnpm0123456789abcdefghijklmnop",
        "npm_PLANTEDnpm0123456789abcdefghijklmnop",
    ),
    (
        "hugging face token",
        "huggingface-cli login --token hf_PLANTEDhuggingfaceTokenAbcdefghijk",
        "hf_PLANTEDhuggingfaceTokenAbcdefghijk",
    ),
    (
        "stripe key",
        "curl https://api.stripe.com/v1/charges -u sk_live_PLANTEDstripe0123456789ab -d amount=100",
        "sk_live_PLANTEDstripe0123456789ab",
    ),
    (
        "sendgrid key",
        "SENDGRID SG.PLANTEDsendgrid012345.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO_-3 sent",
        "SG.PLANTEDsendgrid012345.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO_-3",
    ),
    (
        "google oauth token",
        "gcloud auth print-access-token: ya29.PLANTEDgoogleOauth_a0AfB-0123456789 ok",
        "ya29.PLANTEDgoogleOauth_a0AfB-0123456789",
    ),
    (
        "azure storage key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=PLANTEDazure0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab==;EndpointSuffix=core.windows.net",
        "PLANTEDazure0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab==",
    ),
    // Twilio's keys are hex digits, which cannot spell the marker: found by their text alone.
    (
        "twilio key",
        "twilio api:core:keys SK0a1b2c3d4e5f60718293a4b5c6d7e8f9 created",
        "SK0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    ),
];

/// The text secrets, one per line, appended to strings the mapping is likely to copy.
fn text_secrets() -> String {
    TEXT_SECRETS.iter().map(|(_, text, _)| format!("\n{text}")).collect()
}

/// The tree secrets: keys naming a credential, and every text secret as a value of its own,
/// placed in a message object; each holds the marker.
fn tree_secrets() -> serde_json::Map<String, Value> {
    let values: Vec<Value> = TEXT_SECRETS.iter().map(|(_, text, _)| json!(text)).collect();
    let planted = json!({
        "accessToken": "PLANTEDaccessToken",
        "headers": { "Authorization": "Basic PLANTEDbasicAuth" },
        "env": {
            "GITHUB_TOKEN": "PLANTEDtreeGithub",
            "openai_api_key": "PLANTEDtreeOpenai",
            "db_password": "PLANTEDtreeDbPassword",
            "AWS_SECRET_ACCESS_KEY": "PLANTEDtreeAwsSecret",
        },
        "plantedValues": values,
    });
    match planted {
        Value::Object(map) => map,
        other => panic!("an object: {other}"),
    }
}

/// Non-secrets planted in trees, each as the JSON text the output must carry unchanged.
const TREE_NON_SECRETS: &[&str] = &[
    r#""_meta":{"api-key":{"provider":"google"}}"#,
    r#""max_tokens":4096"#,
    r#""token_count":1234"#,
    r#""input_tokens":1234"#,
    r#""path":"src/tokenizer.py""#,
    r#""apiKeySource":"none""#,
];

/// Non-secrets in text: they read like credentials to a careless rule. It ends a line, so the
/// text a stream appends to it is not read as part of its last word.
const TEXT_NON_SECRETS: &str = "\nmax_tokens: 4096, token_count=1234, input_tokens 12\nsee tokenizer.py and tokenizer_config.json\napiKeySource: \"none\"\n\"_meta\": {\"api-key\": {\"provider\": \"google\"}}\nthe bearer token is required; password: string\nnpm_config_cache=/tmp/npm; from huggingface_hub import hf_hub_download\nSKIP_TESTS=1 task_list risk_level sk_live_mode; the ya29. prefix; SG.Version\nAccountKey=<your key>; glpat- tokens expire\n";

/// Plants into a message: `text` appended to the strings the mapping copies, `tree` beside the
/// message's own keys and its payload's.
fn plant(message: &mut Value, text: &str, tree: &serde_json::Map<String, Value>) {
    fn strings(value: &mut Value, text: &str) {
        match value {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match item {
                        Value::String(copied)
                            if matches!(
                                key.as_str(),
                                "delta" | "text" | "command" | "aggregatedOutput" | "message" | "output" | "result"
                            ) =>
                        {
                            copied.push_str(text);
                        }
                        other => strings(other, text),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| strings(item, text)),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    strings(message, text);
    if let Value::Object(map) = message {
        for key in ["params", "result", "payload"] {
            if let Some(Value::Object(inner)) = map.get_mut(key) {
                inner.extend(tree.clone());
            }
        }
        map.extend(tree.clone());
    }
}

/// The frames of a trace (its lines, or a document's frames), each with secrets planted, one per line.
fn planted_trace(source: Source, text: &str, planted_text: &str, tree: &serde_json::Map<String, Value>) -> String {
    let frames = agentwire_tests::frames(source, text);
    let transcript = frames
        .first()
        .is_some_and(|frame| LineFormat::of(&frame.text) == LineFormat::Transcript);
    frames
        .iter()
        .map(|frame| {
            let mut record: Value = serde_json::from_str(&frame.text).expect("corpus frames are JSON");
            if transcript {
                plant(&mut record["msg"], planted_text, tree);
            } else {
                plant(&mut record, planted_text, tree);
            }
            record.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn normalize(source: Source, text: &str, keep_secrets: bool) -> String {
    let format = LineFormat::of(text.lines().next().unwrap_or_default());
    let mut normalizer = source.normalizer(Options::default().with_keep_secrets(keep_secrets));
    let mut events = Vec::new();
    for line in text.lines() {
        let _ = normalizer.push_line(line, format, &mut events);
    }
    normalizer.finish(&mut events);
    events
        .iter()
        .map(|event| serde_json::to_string(event).expect("events serialize"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The output line holding byte `at`, for a failure message.
fn line_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let end = text[at..].find('\n').map_or(text.len(), |newline| at + newline);
    &text[start..end]
}

#[test]
fn planted_secrets_never_reach_the_output() {
    let tree = tree_secrets();
    let text = text_secrets();
    let mut checked = 0;
    for &source in Source::ALL {
        let traces = traces(source);
        assert!(!traces.is_empty(), "{source}: a corpus to plant secrets in");
        // Which kinds of text secret reached the output of some trace with `keep_secrets`.
        let mut reached = vec![false; TEXT_SECRETS.len()];
        for trace in traces {
            let planted = planted_trace(source, &std::fs::read_to_string(&trace).expect("a trace"), &text, &tree);
            let redacted = normalize(source, &planted, false);
            if let Some(at) = redacted.find(MARKER) {
                panic!(
                    "{source} {}: a planted secret leaked: {}",
                    trace_name(&trace),
                    line_at(&redacted, at)
                );
            }
            for (kind, _, secret) in TEXT_SECRETS {
                // Serialized as JSON text, a newline in the secret is `\n`.
                let written = secret.replace('\n', "\\n");
                assert!(
                    !redacted.contains(&written),
                    "{source} {}: the {kind} leaked",
                    trace_name(&trace)
                );
            }
            let kept = normalize(source, &planted, true);
            for secret in ["PLANTEDaccessToken", "PLANTEDtreeGithub", "PLANTEDtreeAwsSecret"] {
                assert!(
                    kept.contains(secret),
                    "{source} {}: with keep_secrets the planted keys reach the output",
                    trace_name(&trace)
                );
            }
            for (index, (_, _, secret)) in TEXT_SECRETS.iter().enumerate() {
                reached[index] |= kept.contains(&secret.replace('\n', "\\n"));
            }
            checked += 1;
        }
        // Every source copies some provider text into its output, so every source is tested
        // for every kind of text secret, not only for keys.
        for (index, (kind, _, _)) in TEXT_SECRETS.iter().enumerate() {
            assert!(
                reached[index],
                "{source}: with keep_secrets, the {kind} reaches the output of some trace"
            );
        }
    }
    assert!(checked >= 26, "every trace of every source was planted ({checked})");
}

#[test]
fn non_secrets_reach_the_output_unchanged() {
    let tree: serde_json::Map<String, Value> = TREE_NON_SECRETS
        .iter()
        .map(|member| {
            let object: serde_json::Map<String, Value> =
                serde_json::from_str(&format!("{{{member}}}")).expect("a JSON member");
            object.into_iter().next().expect("one member")
        })
        .collect();
    let mut checked = 0;
    for &source in Source::ALL {
        for trace in traces(source) {
            let planted = planted_trace(
                source,
                &std::fs::read_to_string(&trace).expect("a trace"),
                TEXT_NON_SECRETS,
                &tree,
            );
            let redacted = normalize(source, &planted, false);
            // The corpus holds no credential, so nothing at all is redacted: the output is the
            // output without redaction, byte for byte.
            assert!(
                !redacted.contains("[redacted]"),
                "{source} {}: {}",
                trace_name(&trace),
                line_at(&redacted, redacted.find("[redacted]").unwrap_or_default())
            );
            assert_eq!(
                redacted,
                normalize(source, &planted, true),
                "{source} {}",
                trace_name(&trace)
            );
            for member in TREE_NON_SECRETS {
                assert!(
                    redacted.contains(member),
                    "{source} {}: {member} as planted",
                    trace_name(&trace)
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 26, "every trace of every source was planted ({checked})");
}
