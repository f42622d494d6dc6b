"""Render a report from its config."""

from string import Template

from reportgen.config import load_config


def render(config_path, values):
    """Fill the config's template with values, write <output_dir>/report.txt and return its path."""
    config = load_config(config_path)
    template = Template(config["template"].read_text(encoding="utf-8"))
    text = template.substitute(title=config["title"], **values)
    config["output_dir"].mkdir(parents=True, exist_ok=True)
    target = config["output_dir"] / "report.txt"
    target.write_text(text, encoding="utf-8")
    return target
