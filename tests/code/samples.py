"""Small realistic sources per language and the definitions in each (worked out by hand),
for test_languages."""

from __future__ import annotations

from agent.code.languages import LANGS

LANG = {lang.name: lang for lang in LANGS}
SRC = {
    "python": """\
from pkg.sub import Base
LIMIT = 10
class Circle(Base):
    def area(self, scale: int,
             extra: str) -> float:
        return helper(scale) * LIMIT
        # trailing comment

    @property
    def label(self) -> str:
        return self.name
async def helper(x):
    return x
""",
    "javascript": """\
import { Base } from "./base.js";
export const LIMIT = 10;
class Circle extends Base {
  area(scale) {
    return helper(scale) * this.radius;
  }
}
function helper(x) {
  return x * LIMIT;
}
const double = (n) => n * 2;
""",
    "typescript": """\
interface Shape {
  area(): number;
}
type Id = string;
enum Color { Red, Green }
export class Circle implements Shape {
  constructor(private radius: number) {}
  area(): number {
    return Math.PI * this.radius ** 2;
  }
}
function make(r: number): Shape {
  return new Circle(r);
}
""",
    "tsx": """\
interface Props {
  label: string;
}
class Store {
  add(item: string): void {
    log(item);
  }
}
export function Button({ label }: Props) {
  return <button onClick={handle}>{label}</button>;
}
const handle = () => log("clicked");
""",
    "go": """\
package shapes
import "math"
const Limit = 10
type Circle struct {
    Radius float64
}
type Shape interface {
    Area() float64
}
func (c Circle) Area() float64 {
    return math.Pi * c.Radius * c.Radius
}
func NewCircle(r float64) *Circle {
    return &Circle{Radius: r * Limit}
}
""",
    "rust": """\
use std::fmt;
pub struct Circle {
    radius: f64,
}
pub trait Shape {
    fn area(&self) -> f64;
}
impl Circle {
    pub fn new(radius: f64) -> Self {
        Circle { radius }
    }
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.radius * self.radius
    }
}
fn main() {
    let c = Circle::new(2.0);
    let _a = c.area();
}
""",
    "java": """\
import java.util.List;
public class Circle implements Shape {
    private final double radius;
    public Circle(double radius) {
        this.radius = radius;
    }
    @Override
    public double area() {
        return Math.PI * radius * radius;
    }
}
interface Shape {
    double area();
}
""",
    "c": """\
#include <stdio.h>
#define MAX 10
struct point {
    int x;
    int y;
};
typedef struct point point_t;
int add(int a, int b);
int add(int a, int b) {
    return a + b + MAX;
}
char *describe(point_t *p) {
    printf("%d\\n", p->x);
    return 0;
}
""",
    "cpp": """\
namespace geo {
class Circle {
 public:
  explicit Circle(double r) : radius_(r) {}
  double area() const;
 private:
  double radius_;
};
double Circle::area() const {
  return 3.14 * radius_ * radius_;
}
}  // namespace geo
int main() {
  geo::Circle c(2.0);
  return static_cast<int>(c.area());
}
""",
    "ruby": """\
require "json"
module Shapes
  class Circle < Base
    def initialize(radius)
      @radius = radius
    end
    def area
      Math::PI * @radius**2
    end
    def self.unit
      new(1)
    end
  end
end
def describe(shape)
  puts shape.area
end
""",
    "bash": """\
#!/usr/bin/env bash
set -e
log() {
  echo "$1" >&2
}
function build {
  log "building"
  make all
}
build
""",
    "csharp": """\
using System;
namespace Shapes
{
    public interface IShape
    {
        double Area();
    }
    public class Circle : IShape
    {
        public double Radius { get; set; }
        public Circle(double radius)
        {
            Radius = radius;
        }
        public double Area() => Math.PI * Radius * Radius;
    }
}
""",
    "php": """\
<?php
namespace App\\Shapes;
interface Shape
{
    public function area(): float;
}
class Circle implements Shape
{
    public function __construct(private float $radius) {}
    public function area(): float
    {
        return M_PI * $this->radius ** 2;
    }
}
function make(float $r): Shape
{
    return new Circle($r);
}
""",
}
M, F, C = "method", "function", "class"
DEFS: dict[str, list[tuple[str, str, int, int, int]]] = {
    "python": [("variable", "LIMIT", 2, 2, 0), (C, "Circle", 3, 11, 0), (M, "area", 4, 6, 1),
               (M, "label", 10, 11, 1), (F, "helper", 12, 13, 0)],
    "javascript": [("variable", "LIMIT", 2, 2, 0), (C, "Circle", 3, 7, 0), (M, "area", 4, 6, 1),
                   (F, "helper", 8, 10, 0), (F, "double", 11, 11, 0)],
    "typescript": [("interface", "Shape", 1, 3, 0), (M, "area", 2, 2, 1), ("type", "Id", 4, 4, 0),
                   ("enum", "Color", 5, 5, 0), (C, "Circle", 6, 11, 0),
                   (M, "constructor", 7, 7, 1), (M, "area", 8, 10, 1), (F, "make", 12, 14, 0)],
    "tsx": [("interface", "Props", 1, 3, 0), (C, "Store", 4, 8, 0), (M, "add", 5, 7, 1),
            (F, "Button", 9, 11, 0), (F, "handle", 12, 12, 0)],
    "go": [("constant", "Limit", 3, 3, 0), ("struct", "Circle", 4, 6, 0),
           ("interface", "Shape", 7, 9, 0), (M, "Area", 8, 8, 1), (M, "Area", 10, 12, 0),
           (F, "NewCircle", 13, 15, 0)],
    "rust": [("struct", "Circle", 2, 4, 0), ("trait", "Shape", 5, 7, 0), (M, "area", 6, 6, 1),
             ("impl", "Circle", 8, 15, 0), (M, "new", 9, 11, 1), (M, "area", 12, 14, 1),
             (F, "main", 16, 19, 0)],
    "java": [(C, "Circle", 2, 11, 0), (M, "Circle", 4, 6, 1), (M, "area", 7, 10, 1),
             ("interface", "Shape", 12, 14, 0), (M, "area", 13, 13, 1)],
    "c": [("macro", "MAX", 2, 2, 0), ("struct", "point", 3, 6, 0), ("type", "point_t", 7, 7, 0),
          (F, "add", 8, 8, 0), (F, "add", 9, 11, 0), (F, "describe", 12, 15, 0)],
    "cpp": [("module", "geo", 1, 12, 0), (C, "Circle", 2, 8, 1), (M, "Circle", 4, 4, 2),
            (M, "area", 5, 5, 2), (M, "area", 9, 11, 1), (F, "main", 13, 16, 0)],
    "ruby": [("module", "Shapes", 2, 14, 0), (C, "Circle", 3, 13, 1), (M, "initialize", 4, 6, 2),
             (M, "area", 7, 9, 2), (M, "unit", 10, 12, 2), (F, "describe", 15, 17, 0)],
    "bash": [(F, "log", 3, 5, 0), (F, "build", 6, 9, 0)],
    "csharp": [("module", "Shapes", 2, 17, 0), ("interface", "IShape", 4, 7, 1),
               (M, "Area", 6, 6, 2), (C, "Circle", 8, 16, 1), ("property", "Radius", 10, 10, 2),
               (M, "Circle", 11, 14, 2), (M, "Area", 15, 15, 2)],
    "php": [("module", "App\\Shapes", 2, 2, 0), ("interface", "Shape", 3, 6, 0),
            (M, "area", 5, 5, 1), (C, "Circle", 7, 14, 0), (M, "__construct", 9, 9, 1),
            (M, "area", 10, 13, 1), (F, "make", 15, 18, 0)],
}  # fmt: skip
