//! The loop's report, written after every generation: `report.md` (tables) and `report.html`
//! (the same tables and three plots, self-contained: the SVG is inline).
//!
//! The plots: the cumulative Elo of each promoted net over generation 0 with its 95% interval
//! (the gates' intervals combined as independent), the training and validation loss per epoch
//! of each generation, and each stage's wall time per generation.

use std::fmt::Write as _;
use std::path::Path;

use ferz_dataset::manifest::short_sha;
use plotters::prelude::*;

use crate::LoopError;
use crate::Stage;
use crate::config::{Recipe, StartingPoint, TrainInit};
use crate::ledger::{GenerationRecord, Ledger, generations};

/// The Markdown report's file in the loop directory.
pub const MARKDOWN_FILE: &str = "report.md";
/// The HTML report's file.
pub const HTML_FILE: &str = "report.html";

/// One point of the cumulative Elo curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CumulativeElo {
    /// The generation whose net became the best.
    pub generation: u32,
    /// Elo over generation 0, the promoted gates' Elo summed.
    pub elo: f64,
    /// Half the width of its 95% interval.
    pub margin: f64,
}

/// The best net's Elo over generation 0 after each promotion (generation 0 first, at 0).
#[must_use]
pub fn cumulative_elo(generations: &[GenerationRecord]) -> Vec<CumulativeElo> {
    let mut points = vec![CumulativeElo { generation: 0, elo: 0.0, margin: 0.0 }];
    let (mut elo, mut variance) = (0.0, 0.0);
    for g in generations.iter().filter(|g| g.promoted) {
        elo += g.gate.elo;
        let sigma = (g.gate.elo_high - g.gate.elo_low) / 2.0 / 1.96;
        variance += sigma * sigma;
        points.push(CumulativeElo { generation: g.generation, elo, margin: 1.96 * variance.sqrt() });
    }
    points
}

/// Writes `report.md` and `report.html` into `dir` (each through a temporary file).
///
/// # Errors
/// A file that cannot be written.
pub fn write(dir: &Path, ledger: &Ledger) -> Result<(), LoopError> {
    let markdown = markdown(ledger);
    let html = html(ledger, &markdown_tables_as_html(ledger));
    for (name, text) in [(MARKDOWN_FILE, markdown), (HTML_FILE, html)] {
        let path = dir.join(name);
        ferz_files::write_atomic(&path, text.as_bytes()).map_err(|source| LoopError::Io { path, source })?;
    }
    Ok(())
}

/// The rows of the generations table.
fn generation_rows(ledger: &Ledger) -> Vec<[String; 9]> {
    let curve = cumulative_elo(&ledger.generations);
    ledger
        .generations
        .iter()
        .map(|g| {
            let best = curve.iter().rev().find(|p| p.generation <= g.generation).expect("generation 0 is first");
            let validation =
                g.train.epochs.last().and_then(|e| e.validation).map_or("-".to_owned(), |v| format!("{v:.5}"));
            [
                g.generation.to_string(),
                format!("gen {}", g.player.generation),
                format!("{} / {}", g.data.games, g.data.positions),
                trained_on(g, ledger.settings.run.start),
                validation,
                format!("{} (+{} ={} -{})", g.gate.games, g.gate.wins, g.gate.draws, g.gate.losses),
                format!("{:+.1} ± {:.1}", g.gate.elo, (g.gate.elo_high - g.gate.elo_low) / 2.0),
                format!(
                    "{:.2} ({:.2}, {:.2}) {}",
                    g.gate.llr,
                    g.gate.llr_bounds.0,
                    g.gate.llr_bounds.1,
                    g.gate.verdict.name()
                ),
                format!("{:+.1} ± {:.1} (gen {})", best.elo, best.margin, best.generation),
            ]
        })
        .collect()
}

/// What a generation's candidate trained on: its positions, whose games (the generations, as
/// spans), where it started, for how many epochs, and the scale it was set to for its gate.
fn trained_on(g: &GenerationRecord, start: StartingPoint) -> String {
    // The hand-tuned start has no weights to begin from.
    let no_weights = g.player.generation == 0 && start == StartingPoint::HandTuned;
    let start = match g.recipe.train.init {
        TrainInit::Best if !no_weights => format!("from gen {}", g.player.generation),
        _ => "from scratch".to_owned(),
    };
    let gens = if g.train.data_generations.len() == 1 { "gen" } else { "gens" };
    let outside = match g.recipe.train.extra_inputs.len() {
        0 => String::new(),
        1 => " and 1 dataset from outside".to_owned(),
        n => format!(" and {n} datasets from outside"),
    };
    let scale = g.train.scale.map(|scale| format!(", at scale {scale}")).unwrap_or_default();
    format!(
        "{} of {gens} {}{outside}, {start}, {} epochs{scale}",
        g.train.positions,
        generation_spans(&g.train.data_generations),
        g.train.epochs.len()
    )
}

/// Generations as spans of consecutive ones: `[1, 2, 3, 5]` is `1-3, 5`.
fn generation_spans(generations: &[u32]) -> String {
    let mut spans: Vec<(u32, u32)> = Vec::new();
    for &g in generations {
        match spans.last_mut() {
            Some((_, last)) if *last + 1 == g => *last = g,
            _ => spans.push((g, g)),
        }
    }
    let span = |&(first, last): &(u32, u32)| if first == last { first.to_string() } else { format!("{first}-{last}") };
    spans.iter().map(span).collect::<Vec<_>>().join(", ")
}

const GENERATION_HEADER: [&str; 9] = [
    "generation",
    "played by",
    "games / positions",
    "trained on",
    "validation loss",
    "gate games",
    "gate Elo",
    "LLR (bounds) verdict",
    "best over gen 0",
];

/// The rows of the cost table: per stage, wall and CPU seconds summed over the generations,
/// and what the stage made of a CPU-hour ([`made_in`]), counted over the generations whose
/// time of that stage is recorded, so that work without a time does not inflate the rate.
fn cost_rows(ledger: &Ledger) -> Vec<[String; 4]> {
    let total_wall: f64 =
        ledger.generations.iter().flat_map(|g| g.stages.values()).map(|t| t.wall_seconds).sum::<f64>().max(1e-9);
    Stage::ALL
        .into_iter()
        .map(|stage| {
            let (wall, cpu, made) = ledger
                .generations
                .iter()
                .filter_map(|g| g.stages.get(&stage).map(|t| (t, made_in(stage, g))))
                .fold((0.0, 0.0, 0), |(w, c, m), (t, made)| (w + t.wall_seconds, c + t.cpu_seconds, m + made));
            let rate = if made > 0 && cpu > 0.0 {
                format!("{} {}", grouped((made as f64 / (cpu / 3600.0)).round() as u64), made_unit(stage))
            } else {
                "-".into()
            };
            [stage.to_string(), format!("{wall:.0} ({:.1}%)", 100.0 * wall / total_wall), format!("{cpu:.0}"), rate]
        })
        .collect()
}

/// What `stage` made in generation `g`, in [`made_unit`]s.
fn made_in(stage: Stage, g: &GenerationRecord) -> u64 {
    match stage {
        Stage::Selfplay | Stage::Merge => g.data.positions,
        Stage::Train => g.train.positions * g.train.epochs.len() as u64,
        Stage::Gate => g.gate.games,
        Stage::Promote => 0,
    }
}

/// The unit of what `stage` makes: positions played, merged or trained on (each epoch counts),
/// or gate games; the promotion makes nothing countable.
fn made_unit(stage: Stage) -> &'static str {
    match stage {
        Stage::Selfplay => "positions played",
        Stage::Merge => "positions merged",
        Stage::Train => "positions trained on",
        Stage::Gate => "games",
        Stage::Promote => "",
    }
}

const COST_HEADER: [&str; 4] = ["stage", "wall seconds (share)", "CPU seconds", "per CPU-hour"];

/// `n` with its digits in groups of three (`2,058,960`), as the figures of docs/ are written.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut s = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            s.push(',');
        }
        s.push(digit);
    }
    s
}

fn markdown_table<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut s = format!("| {} |\n|{}\n", header.join(" | "), "---|".repeat(N));
    for row in rows {
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
    s
}

fn html_table<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let cell = |tag: &str, text: &str| format!("<{tag}>{}</{tag}>", escape(text));
    let mut s = format!("<table><tr>{}</tr>\n", header.iter().map(|h| cell("th", h)).collect::<String>());
    for row in rows {
        let _ = writeln!(s, "<tr>{}</tr>", row.iter().map(|c| cell("td", c)).collect::<String>());
    }
    s + "</table>\n"
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The recipe section when no generation changed it.
const NO_RECIPE_CHANGES: &str = "Every generation was made with the first one's recipe.";

/// Each generation whose recipe differs from the one before it: `generation g: key = now (was
/// before), ...`.
fn recipe_changes(ledger: &Ledger) -> Vec<String> {
    ledger
        .generations
        .windows(2)
        .filter_map(|pair| {
            let changes = changed_settings(&pair[0].recipe, &pair[1].recipe);
            (!changes.is_empty()).then(|| format!("generation {}: {}", pair[1].generation, changes.join(", ")))
        })
        .collect()
}

/// The settings that differ between two recipes, as `key = now (was before)`.
fn changed_settings(was: &Recipe, now: &Recipe) -> Vec<String> {
    ferz_dataset::manifest::differences(&was.spelled_out(), &now.spelled_out(), "")
        .into_iter()
        .map(|(key, was, now)| format!("{key} = {now} (was {was})"))
        .collect()
}

fn summary_line(ledger: &Ledger) -> String {
    let finished = format!(
        "{} finished, {} promoted",
        generations(ledger.generations.len()),
        ledger.generations.iter().filter(|g| g.promoted).count()
    );
    let zero = ledger.generation_zero();
    let best = ledger.best();
    let Some(sha256) = best.sha256.as_deref().filter(|_| best.generation > 0) else {
        return format!("{finished}; the best net is generation 0, {zero}.");
    };
    let curve = cumulative_elo(&ledger.generations);
    let last = curve.last().expect("generation 0 is first");
    format!(
        "{finished}; the best net is generation {} (SHA-256 {}…), {:+.1} ± {:.1} Elo over generation 0, {zero}.",
        best.generation,
        short_sha(sha256),
        last.elo,
        last.margin,
    )
}

/// The Markdown report.
#[must_use]
pub fn markdown(ledger: &Ledger) -> String {
    format!(
        "# ferz loop report\n\n{}\n\n## Generations\n\n{}\n## Recipe changes\n\n{}\n## Cost per stage\n\n{}\nThe loop's own work (merge and promotion) is the share of those two rows.\n",
        summary_line(ledger),
        markdown_table(GENERATION_HEADER, &generation_rows(ledger)),
        match recipe_changes(ledger).as_slice() {
            [] => format!("{NO_RECIPE_CHANGES}\n"),
            changes => changes.iter().map(|c| format!("- {c}\n")).collect(),
        },
        markdown_table(COST_HEADER, &cost_rows(ledger)),
    )
}

fn markdown_tables_as_html(ledger: &Ledger) -> String {
    format!(
        "<h2>Generations</h2>\n{}<h2>Recipe changes</h2>\n{}<h2>Cost per stage</h2>\n{}",
        html_table(GENERATION_HEADER, &generation_rows(ledger)),
        match recipe_changes(ledger).as_slice() {
            [] => format!("<p>{NO_RECIPE_CHANGES}</p>\n"),
            changes => format!(
                "<ul>\n{}</ul>\n",
                changes.iter().map(|c| format!("<li>{}</li>\n", escape(c))).collect::<String>()
            ),
        },
        html_table(COST_HEADER, &cost_rows(ledger))
    )
}

/// The HTML report: the tables and the plots, one self-contained page.
#[must_use]
pub fn html(ledger: &Ledger, tables: &str) -> String {
    let plots = [elo_plot(ledger), loss_plot(ledger), time_plot(ledger)];
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ferz loop report</title>\n\
         <style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}table{{border-collapse:collapse;margin:1em 0}}\
         td,th{{border:1px solid #bbb;padding:4px 8px;text-align:right}}th{{background:#eee}}figure{{margin:1em 0}}</style>\n\
         </head><body>\n<h1>ferz loop report</h1>\n<p>{}</p>\n<h2>Plots</h2>\n{}\n{}</body></html>\n",
        escape(&summary_line(ledger)),
        plots.iter().map(|svg| format!("<figure>{svg}</figure>\n")).collect::<String>(),
        tables
    )
}

/// What a plot's frame shows: the title, the axes and their ranges.
struct Frame<'a> {
    caption: &'a str,
    x_desc: &'a str,
    y_desc: &'a str,
    x_range: std::ops::Range<f64>,
    y_range: std::ops::Range<f64>,
    /// How many labels on the x axis (whole numbers: generations or epochs).
    x_labels: usize,
    /// Room for the y axis' labels, in pixels.
    y_label_width: u32,
}

/// `range` as an axis can show: bounds within ±10⁹ and apart. A ledger edited by hand (or
/// damaged) can hold any number, and plotters' search for tick marks does not end on an axis
/// billions of orders of magnitude long; [`Frame::at`] draws a value beyond the axis at its end.
fn drawable(range: &std::ops::Range<f64>) -> std::ops::Range<f64> {
    const LIMIT: f64 = 1e9;
    let bound = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(-LIMIT, LIMIT) };
    let (low, high) = (bound(range.start), bound(range.end));
    if high - low > 1e-9 * low.abs().max(high.abs()).max(1.0) { low..high } else { low - 1.0..low + 1.0 }
}

impl Frame<'_> {
    /// The point `(x, y)` held inside the frame: a value beyond an axis is drawn at its end
    /// (plotters turns coordinates into `i32` pixels, which a far value overflows).
    fn at(&self, x: f64, y: f64) -> (f64, f64) {
        let hold = |v: f64, range: std::ops::Range<f64>| {
            if v.is_nan() { range.start } else { v.clamp(range.start, range.end) }
        };
        (hold(x, drawable(&self.x_range)), hold(y, drawable(&self.y_range)))
    }
}

/// A chart of `f64` against `f64` in an SVG drawing.
type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Draws a plot in `frame` into an SVG string: `series` draws into the chart and says whether
/// it labelled series for a legend. A drawing error leaves a note instead of a plot (the
/// report is still written).
fn plot(frame: &Frame<'_>, series: impl FnOnce(&mut Chart<'_, '_>) -> Result<bool, String>) -> String {
    let mut out = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut out, (960, 360)).into_drawing_area();
        let draw = || -> Result<(), String> {
            let e = |e: &dyn std::fmt::Display| e.to_string();
            root.fill(&WHITE).map_err(|x| e(&x))?;
            let mut chart = ChartBuilder::on(&root)
                .caption(frame.caption, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(frame.y_label_width)
                .build_cartesian_2d(drawable(&frame.x_range), drawable(&frame.y_range))
                .map_err(|x| e(&x))?;
            chart
                .configure_mesh()
                .x_desc(frame.x_desc)
                .y_desc(frame.y_desc)
                .x_labels(frame.x_labels)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .draw()
                .map_err(|x| e(&x))?;
            if series(&mut chart)? {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|x| e(&x))?;
            }
            root.present().map_err(|x| e(&x))
        };
        draw()
    };
    match result {
        Ok(()) => out,
        Err(e) => format!("<p>plot not drawn: {}</p>", escape(&e)),
    }
}

/// A legend's mark: a short line in the series' colour.
fn legend_line(color: RGBAColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
}

fn elo_plot(ledger: &Ledger) -> String {
    let curve = cumulative_elo(&ledger.generations);
    let last_gen = ledger.generations.len().max(1) as f64;
    let low = curve.iter().map(|p| p.elo - p.margin).fold(0.0_f64, f64::min) - 10.0;
    let high = curve.iter().map(|p| p.elo + p.margin).fold(0.0_f64, f64::max) + 10.0;
    let frame = Frame {
        caption: "Elo of the best net over generation 0 (95% interval)",
        x_desc: "generation",
        y_desc: "Elo",
        x_range: -0.2..last_gen + 0.2,
        y_range: low..high,
        x_labels: last_gen as usize + 1,
        y_label_width: 56,
    };
    plot(&frame, |chart| {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        chart
            .draw_series(LineSeries::new(curve.iter().map(|p| frame.at(f64::from(p.generation), p.elo)), &BLUE))
            .map_err(|x| e(&x))?;
        chart
            .draw_series(curve.iter().map(|p| {
                let [(x, low), (_, elo), (_, high)] =
                    [p.elo - p.margin, p.elo, p.elo + p.margin].map(|y| frame.at(f64::from(p.generation), y));
                ErrorBar::new_vertical(x, low, elo, high, BLUE.filled(), 8)
            }))
            .map_err(|x| e(&x))?;
        // Every gate, promoted or not, as a point at its own Elo against the best of its day.
        chart
            .draw_series(ledger.generations.iter().map(|g| {
                let style = if g.promoted { GREEN.filled() } else { RED.filled() };
                Circle::new(frame.at(f64::from(g.generation), g.gate.elo), 3, style)
            }))
            .map_err(|x| e(&x))?;
        Ok(false)
    })
}

fn loss_plot(ledger: &Ledger) -> String {
    let epochs = ledger.generations.iter().map(|g| g.train.epochs.len()).max().unwrap_or(1).max(1) as f64;
    let values: Vec<f64> = ledger
        .generations
        .iter()
        .flat_map(|g| g.train.epochs.iter().flat_map(|e| [Some(e.train), e.validation]))
        .flatten()
        .collect();
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (low, high) = if low.is_finite() && high > low { (low * 0.95, high * 1.05) } else { (0.0, 1.0) };
    let frame = Frame {
        caption: "Loss per epoch (solid: validation, dashed: training)",
        x_desc: "epoch",
        y_desc: "loss",
        x_range: 0.5..epochs + 0.5,
        y_range: low..high,
        x_labels: epochs as usize,
        y_label_width: 72,
    };
    plot(&frame, |chart| {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        for (i, g) in ledger.generations.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let validation =
                g.train.epochs.iter().filter_map(|ep| ep.validation.map(|v| frame.at(f64::from(ep.epoch), v)));
            chart
                .draw_series(LineSeries::new(validation, color.stroke_width(2)))
                .map_err(|x| e(&x))?
                .label(format!("gen {}", g.generation))
                .legend(legend_line(color));
            chart
                .draw_series(DashedLineSeries::new(
                    g.train.epochs.iter().map(|ep| frame.at(f64::from(ep.epoch), ep.train)),
                    4,
                    3,
                    color.stroke_width(1),
                ))
                .map_err(|x| e(&x))?;
        }
        Ok(!ledger.generations.is_empty())
    })
}

fn time_plot(ledger: &Ledger) -> String {
    let last_gen = ledger.generations.len().max(1) as f64;
    let high =
        ledger.generations.iter().flat_map(|g| g.stages.values()).map(|t| t.wall_seconds).fold(1.0_f64, f64::max);
    let frame = Frame {
        caption: "Wall seconds per stage",
        x_desc: "generation",
        y_desc: "seconds",
        x_range: 0.5..last_gen + 0.5,
        y_range: 0.0..high * 1.1,
        x_labels: last_gen as usize,
        y_label_width: 64,
    };
    plot(&frame, |chart| {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        for (i, stage) in Stage::ALL.into_iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let points: Vec<(f64, f64)> = ledger
                .generations
                .iter()
                .filter_map(|g| g.stages.get(&stage).map(|t| frame.at(f64::from(g.generation), t.wall_seconds)))
                .collect();
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)).point_size(3))
                .map_err(|x| e(&x))?
                .label(stage.name())
                .legend(legend_line(color));
        }
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_left_out_of_the_record_at_its_default_shows_its_value_when_changed() {
        use crate::config::{GateSettings, SelfplaySettings, TrainSettings};
        let was = Recipe {
            selfplay: SelfplaySettings::default(),
            train: TrainSettings::default(),
            gate: GateSettings::default(),
        };
        let mut now = was.clone();
        assert!(changed_settings(&was, &now).is_empty());
        now.train.output_buckets = 8;
        now.train.hidden = 512;
        assert_eq!(changed_settings(&was, &now), ["train.hidden = 512 (was 256)", "train.output_buckets = 8 (was 1)"]);
        // The games a gate plays at once are the run's, not the recipe's: the same games.
        now.gate.concurrency = was.gate.concurrency + 1;
        assert_eq!(changed_settings(&was, &now).len(), 2, "{:?}", changed_settings(&was, &now));
    }

    #[test]
    fn a_candidates_data_is_named_by_its_generations() {
        assert_eq!(generation_spans(&[1, 2, 3, 5]), "1-3, 5");
        assert_eq!(generation_spans(&[4]), "4");
        assert_eq!(generation_spans(&[]), "");
        let ledger: Ledger = serde_json::from_str(include_str!("../../../docs/loops/chess/ledger.json")).unwrap();
        let rows = generation_rows(&ledger);
        assert_eq!(rows[3][3], "6126814 of gen 4, from scratch, 20 epochs");
        assert_eq!(rows[4][3], "8185774 of gens 4-5, from gen 0, 8 epochs");
        assert_eq!(rows[0][3], "636089 of gen 1, from gen 0, 10 epochs");
        let mut hand_tuned = ledger.clone();
        hand_tuned.settings.run.start = StartingPoint::HandTuned;
        assert_eq!(generation_rows(&hand_tuned)[0][3], "636089 of gen 1, from scratch, 10 epochs");
        assert_eq!(generation_rows(&hand_tuned)[6][3], "6087545 of gens 5-7, from gen 5, 8 epochs");
        let mut outside = ledger.clone();
        outside.generations[6].recipe.train.extra_inputs = vec!["round-three".into(), "imported".into()];
        assert_eq!(
            generation_rows(&outside)[6][3],
            "6087545 of gens 5-7 and 2 datasets from outside, from gen 5, 8 epochs"
        );
        // The first run's records have no scale: their candidates played at the trained one.
        assert!(ledger.generations.iter().all(|g| g.train.scale.is_none()));
        let mut scaled = ledger.clone();
        scaled.generations[6].train.scale = Some(287);
        assert_eq!(generation_rows(&scaled)[6][3], "6087545 of gens 5-7, from gen 5, 8 epochs, at scale 287");
    }

    #[test]
    fn each_stage_says_what_it_made_of_a_cpu_hour() {
        assert_eq!([grouped(0), grouped(999), grouped(1000), grouped(2_058_960)], ["0", "999", "1,000", "2,058,960"]);
        let ledger: Ledger = serde_json::from_str(include_str!("../../../docs/loops/chess/ledger.json")).unwrap();
        let rows = cost_rows(&ledger);
        let rate = |stage: Stage| rows.iter().find(|r| r[0] == stage.to_string()).unwrap()[3].clone();
        let played: u64 = ledger.generations.iter().map(|g| g.data.positions).sum();
        let cpu: f64 = ledger.generations.iter().map(|g| g.stages[&Stage::Selfplay].cpu_seconds).sum();
        let expected = grouped((played as f64 * 3600.0 / cpu).round() as u64);
        assert_eq!(rate(Stage::Selfplay), format!("{expected} positions played"));
        assert!(rate(Stage::Train).ends_with(" positions trained on"), "{rows:?}");
        assert!(rate(Stage::Gate).ends_with(" games") && rate(Stage::Promote) == "-", "{rows:?}");

        // A generation whose self-play time went unrecorded adds none of its positions.
        let mut untimed = ledger.clone();
        untimed.generations[0].stages.remove(&Stage::Selfplay);
        let first = &ledger.generations[0];
        let expected = grouped(
            ((played - first.data.positions) as f64 * 3600.0 / (cpu - first.stages[&Stage::Selfplay].cpu_seconds))
                .round() as u64,
        );
        assert_eq!(cost_rows(&untimed)[0][3], format!("{expected} positions played"));
    }
}
